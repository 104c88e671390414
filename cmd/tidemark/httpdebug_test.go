package main

import (
	"testing"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/testrun"
)

// TestHTTPDebugFlag: --http-debug alone means the heads and never takes the script as
// its value, --http-debug=full the bodies too, any other value (as in k6) the heads,
// --no-http-debug off over K6_HTTP_DEBUG; arguments after -- are left alone.
func TestHTTPDebugFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want httpDebugFlag
	}{
		{[]string{"run", "x.js"}, ""},
		{[]string{"run", "--http-debug", "x.js"}, "headers"},
		{[]string{"run", "--http-debug=full", "x.js"}, "full"},
		{[]string{"run", "x.js", "--http-debug=full"}, "full"},
		{[]string{"run", "--http-debug=headers", "x.js"}, "headers"},
		{[]string{"run", "--http-debug=false", "x.js"}, "headers"},
		{[]string{"run", "--no-http-debug", "x.js"}, "off"},
	} {
		// The flags as runCmd registers them.
		app := kingpin.New("t", "")
		cmd := app.Command("run", "")
		var f httpDebugFlag
		var file string
		cmd.Arg("scenario", "").Required().StringVar(&file)
		cmd.Flag("http-debug", "").SetValue(&f)
		cmd.Flag("http-debug.value", "").Hidden().SetValue(httpDebugValue{&f})
		_, err := app.Parse(httpDebugArgs(tc.args))
		require.NoError(t, err, tc.args)
		require.Equal(t, tc.want, f, tc.args)
		require.Equal(t, "x.js", file, tc.args)
		d := testrun.RequestDebug(string(f), promslog.NewNopLogger())
		require.Equal(t, tc.want == "headers" || tc.want == "full", d != nil, tc.args)
		if d != nil {
			require.Equal(t, tc.want == "full", d.Full, tc.args)
		}
	}
	require.Equal(t, []string{"run", "--", "--http-debug=full"}, httpDebugArgs([]string{"run", "--", "--http-debug=full"}))
	for v, want := range map[string]string{"": "", "full": "full", "true": "headers", "false": "headers", "1": "headers"} {
		require.Equal(t, want, testrun.HTTPDebugMode(v), "K6_HTTP_DEBUG=%q", v)
	}
}
