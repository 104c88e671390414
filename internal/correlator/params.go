package correlator

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// ParseParams reads catalog parameters given as text (name=value pairs on a command
// line) into Config.Params; nil when there are none. Whether each name is in the
// catalog is checked by Correlate.
func ParseParams(raw map[string]string) (map[string]float64, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	out := make(map[string]float64, len(raw))
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		x, err := strconv.ParseFloat(raw[k], 64)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: expected a number", k, raw[k])
		}
		out[k] = x
	}
	return out, nil
}
