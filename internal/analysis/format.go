package analysis

import (
	"fmt"
	"math"
	"time"
)

// FormatValue prints a value in its unit as the reports and the regression texts do:
// seconds as ms, s or a duration, ratios and percentages as %, rates per second, cores
// in millicores, bytes in binary units, counts of VUs and replicas with their noun.
func FormatValue(unit string, v float64) string {
	switch unit {
	case UnitSeconds:
		return FormatSeconds(v)
	case UnitRatio:
		return fmt.Sprintf("%.2f%%", v*100)
	case UnitPercent:
		return fmt.Sprintf("%.1f%%", v)
	case UnitPerSec:
		return fmt.Sprintf("%.1f/s", v)
	case UnitCores:
		return fmt.Sprintf("%.0fm", v*1000)
	case UnitBytes:
		return FormatBytes(v)
	case UnitReplicas:
		return FormatNum(v) + " replicas"
	case UnitVUs:
		return FormatNum(v) + " VUs"
	case UnitCount, "":
		return FormatNum(v)
	}
	return FormatNum(v) + " " + unit
}

// FormatSeconds prints a span: milliseconds under a second, whole seconds under a
// minute, else a duration rounded to the second.
func FormatSeconds(s float64) string {
	switch a := math.Abs(s); {
	case a < 1:
		return fmt.Sprintf("%.0f ms", s*1000)
	case a < 60:
		return fmt.Sprintf("%.0f s", s)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// FormatNum prints a number: whole numbers exactly, large ones without decimals, the
// rest with three significant digits.
func FormatNum(v float64) string {
	switch {
	case v == float64(int64(v)) && v < 1e15 && v > -1e15:
		return fmt.Sprintf("%d", int64(v))
	case v > 100 || v < -100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// FormatBytes prints a size in binary units with one decimal.
func FormatBytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
