package hpa

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestScaleLimits pins the behavior policies in both directions: SelectMax takes the
// policy that allows the most change, SelectMin the least, and the changes inside a
// policy's period are taken back first (Kubernetes' scale limits with behaviors).
func TestScaleLimits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	policies := []Policy{{PodsPolicy, 4, 60}, {PercentPolicy, 50, 60}}
	recentUp := []scaleEvent{{change: 2, at: now.Add(-30 * time.Second)}, {change: 5, at: now.Add(-5 * time.Minute)}}
	for _, tc := range []struct {
		name     string
		up       bool
		current  int32
		sel      SelectPolicy
		upEvents []scaleEvent
		want     int32
	}{
		{name: "up, max: pods allow more", up: true, current: 2, sel: SelectMax, want: 6},
		{name: "up, min: percent allows less", up: true, current: 2, sel: SelectMin, want: 3},
		{name: "up, max: percent allows more", up: true, current: 20, sel: SelectMax, want: 30},
		{name: "up, a change inside the period counts against it", up: true, current: 4, sel: SelectMax, upEvents: recentUp, want: 6},
		{name: "down, max: percent allows more", up: false, current: 10, sel: SelectMax, want: 5},
		{name: "down, min: pods allow less", up: false, current: 10, sel: SelectMin, want: 6},
		{name: "down, max: pods allow more", up: false, current: 6, sel: SelectMax, want: 2},
		{name: "disabled up", up: true, current: 3, sel: SelectDisabled, want: 3},
		{name: "disabled down", up: false, current: 3, sel: SelectDisabled, want: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &Rules{SelectPolicy: tc.sel, Policies: policies}
			got := scaleDownLimit(now, tc.current, tc.upEvents, nil, r)
			if tc.up {
				got = scaleUpLimit(now, tc.current, tc.upEvents, nil, r)
			}
			require.Equal(t, tc.want, got)
		})
	}
}
