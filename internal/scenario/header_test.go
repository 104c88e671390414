package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestValidHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in          string
		name, value bool
	}{
		{in: "X-Request-Id", name: true, value: true},
		{in: "!#$%&'*+-.^_`|~09az", name: true, value: true},
		{in: "", value: true},
		{in: "a b", value: true},
		{in: "a:b", value: true},
		{in: "a\tb", value: true},
		{in: "é", value: true},
		{in: "a\r\nb"},
		{in: "a\x00"},
		{in: "a\x7f"},
	} {
		require.Equal(t, tc.name, ValidHeaderName(tc.in), "name %q", tc.in)
		require.Equal(t, tc.name, ValidHeaderName([]byte(tc.in)), "name %q as bytes", tc.in)
		require.Equal(t, tc.value, ValidHeaderValue(tc.in), "value %q", tc.in)
		require.Equal(t, tc.value, ValidHeaderValue([]byte(tc.in)), "value %q as bytes", tc.in)
	}
}
