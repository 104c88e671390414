package scenario

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration parses a k6 duration string: Go's forms ("30s", "1m30s", "2h",
// "500ms", "1.5s", "250us") plus a leading number of days ("1d", "1d12h"). "0" is zero.
// Negative durations are rejected. A bare number needs a unit; in YAML, write it as a
// number (not a string) to mean milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration")
	}
	if strings.HasPrefix(s, "-") {
		return 0, errors.New("negative duration")
	}
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.ParseUint(s[:i], 10, 32)
		if err == nil {
			if n > math.MaxInt64/uint64(24*time.Hour) {
				return 0, errors.New("duration out of range")
			}
			days = time.Duration(n) * 24 * time.Hour
			s = s[i+1:]
			if s == "" {
				return days, nil
			}
			if s[0] < '0' || s[0] > '9' {
				return 0, errors.New("invalid duration")
			}
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return 0, errors.New("missing unit")
		}
		return 0, errors.New("invalid duration")
	}
	if d < 0 || d > math.MaxInt64-days {
		return 0, errors.New("duration out of range")
	}
	return days + d, nil
}

// msDuration converts a number of milliseconds (k6's bare-number durations) to a
// Duration.
func msDuration(ms float64) (time.Duration, error) {
	if math.IsNaN(ms) || ms < 0 {
		return 0, errors.New("negative duration")
	}
	if ms*float64(time.Millisecond) >= math.MaxInt64 {
		return 0, errors.New("duration out of range")
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}
