package regress

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGroup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"spike-50-20260528", "spike-50"},
		{"spike-50-20260529", "spike-50"},
		{"spike-50-20260528-101500", "spike-50"},
		{"spike-50-20260528-1015", "spike-50"},
		{"spike-50-20260528T101500Z", "spike-50"},
		{"spike-50-20260528T101500", "spike-50"},
		{"spike-50-20260528101500", "spike-50"},
		{"spike-50_2026-05-28", "spike-50"},
		{"spike-50-2026-05-28T10-15-00Z", "spike-50"},
		{"spike-50-2026-05-28T10:15:00Z", "spike-50"},
		{"spike-50-2026-05-28_1015", "spike-50"},
		{"spike-50.20260528", "spike-50"},
		{"spike-50-1780000000", "spike-50"},
		{"spike-50-1780000000123", "spike-50"},
		{"spike-100rps-20261130-100000", "spike-100rps"},
		// No suffix: the testid is its own group.
		{"spike-50", "spike-50"},
		{"spike", "spike"},
		{"20260528", "20260528"},
		{"-20260528", "-20260528"},
		// Not dates: invalid month or day, too few digits, not at the end.
		{"spike-20261328", "spike-20261328"},
		{"spike-20260532", "spike-20260532"},
		{"build-1234567", "build-1234567"},
		{"spike-20260528-eu", "spike-20260528-eu"},
		{"spike20260528", "spike20260528"},
	} {
		require.Equal(t, tc.want, Group(tc.in), tc.in)
	}
}
