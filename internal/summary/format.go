package summary

import (
	"math"
	"strconv"
	"strings"
)

// The formatters below reproduce how k6's end-of-test summary prints numbers
// (reference/k6.md §3.2). They take k6's units: durations in milliseconds, data in
// bytes. JavaScript number semantics (toString, toFixed, Math.trunc) are spelled out
// where Go's differ.

// truncNudge is added (relative) before truncating to 2 decimals. Our durations reach
// milliseconds through a float multiplication (seconds × 1000), so an exact 148.21 can
// arrive as 148.20999999999998 and would truncate to 148.2; a nudge of one part in 10^9
// restores the intended digits without ever changing a value that is really below the
// next hundredth by more than that.
const truncNudge = 1e-9

// jsNumber formats v the way JavaScript's Number.prototype.toString does: the shortest
// representation that round-trips, in exponent form below 1e-6 and from 1e21 on.
func jsNumber(v float64) string {
	switch {
	case v == 0:
		return "0" // Also -0, as in JavaScript.
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	if a := math.Abs(v); a >= 1e21 || a < 1e-6 {
		s := strconv.FormatFloat(v, 'e', -1, 64) // 1e-07, 1.5e+21
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// toFixed is JavaScript's Number.prototype.toFixed for |v| < 1e21.
func toFixed(v float64, prec int) string {
	if math.Abs(v) >= 1e21 || math.IsNaN(v) || math.IsInf(v, 0) {
		return jsNumber(v)
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.TrimLeft(s, "-0.") == "" {
		return strings.TrimPrefix(s, "-") // JavaScript prints (-0.001).toFixed(2) as "-0.00"; we drop the sign of zero.
	}
	return s
}

// fixedNoTrailingZeros rounds v to prec decimals and drops trailing zeros: 13.1221790 →
// "13.122179", 45.000000 → "45".
func fixedNoTrailingZeros(v float64, prec int) string {
	f, err := strconv.ParseFloat(toFixed(v, prec), 64)
	if err != nil {
		return jsNumber(v)
	}
	return jsNumber(f)
}

// truncate cuts v to prec decimals toward zero (k6 truncates, it does not round).
func truncate(v float64, prec int) float64 {
	mult := math.Pow(10, float64(prec))
	x := v * mult
	x += math.Abs(x) * truncNudge * sign(x)
	return math.Trunc(x) / mult
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// fixedNoTrailingZerosTrunc truncates v to prec decimals and drops trailing zeros.
func fixedNoTrailingZerosTrunc(v float64, prec int) string {
	return fixedNoTrailingZeros(truncate(v, prec), prec)
}

// formatRate prints a ratio as a percentage truncated to 2 decimals: 0.99999 → "99.99%".
func formatRate(v float64) string {
	return toFixed(truncate(v*100, 2), 2) + "%"
}

// byteUnits are k6's base-1000 units.
var byteUnits = [...]string{"B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"}

// formatBytes prints a byte count in base-1000 units with one decimal below 10 and none
// from 10 on, rounding half up: 4900 → "4.9 kB", 519000 → "519 kB", 7 → "7 B".
func formatBytes(b float64) string {
	if b < 10 || math.IsNaN(b) {
		return jsNumber(b) + " B"
	}
	// k6 computes the exponent as floor(log(b)/log(1000)), which comes out one short for
	// exact powers such as 1e6 ("1000 kB"); we count it exactly.
	e := 0
	scaled := b
	for scaled >= 1000 && e < len(byteUnits)-1 {
		scaled /= 1000
		e++
	}
	val := math.Floor(scaled*10+0.5) / 10
	prec := 0
	if val < 10 {
		prec = 1
	}
	return toFixed(val, prec) + " " + byteUnits[e]
}

// timeUnits are the units --summary-time-unit can force, with their factor from ms.
var timeUnits = map[string]struct {
	unit string
	coef float64
}{
	"s":  {"s", 0.001},
	"ms": {"ms", 1},
	"us": {"µs", 1000},
}

// formatDuration prints a duration given in milliseconds. With a forced unit (s, ms,
// us) it is rounded to 2 decimals in that unit; otherwise it picks ns, µs, ms, s, XmYs
// or XhYmZs, truncating to 2 decimals (whole seconds beyond a minute).
func formatDuration(ms float64, forced string) string {
	if u, ok := timeUnits[forced]; ok {
		return toFixed(ms*u.coef, 2) + u.unit
	}
	switch {
	case ms == 0:
		return "0s"
	case ms < 0.001:
		return jsNumber(math.Trunc(ms*1e6)) + "ns"
	case ms < 1:
		return fixedNoTrailingZerosTrunc(ms*1000, 2) + "µs"
	case ms < 1000:
		return fixedNoTrailingZerosTrunc(ms, 2) + "ms"
	}
	prec := 2
	if ms > 60000 {
		prec = 0
	}
	secs := fixedNoTrailingZerosTrunc(math.Mod(ms, 60000)/1000, prec) + "s"
	mins := math.Trunc(ms / 60000)
	if mins < 1 {
		return secs
	}
	out := jsNumber(math.Mod(mins, 60)) + "m" + secs
	hours := math.Trunc(mins / 60)
	if hours < 1 {
		return out
	}
	return jsNumber(hours) + "h" + out
}
