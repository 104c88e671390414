package webdash

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		arg     string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{name: "defaults are k6's but a 1 s period", want: Config{Host: "localhost", Port: 5665, Period: time.Second}},
		{name: "environment", env: map[string]string{
			"K6_WEB_DASHBOARD_HOST": "0.0.0.0", "K6_WEB_DASHBOARD_PORT": "8080", "K6_WEB_DASHBOARD_PERIOD": "10s",
			"K6_WEB_DASHBOARD_OPEN": "true", "K6_WEB_DASHBOARD_EXPORT": "report.html",
		}, want: Config{Host: "0.0.0.0", Port: 8080, Period: 10 * time.Second, Open: true, Export: "report.html"}},
		{name: "the argument wins over the environment", arg: "port=0&period=2s&export=out.html.gz&host=",
			env:  map[string]string{"K6_WEB_DASHBOARD_PORT": "8080", "K6_WEB_DASHBOARD_EXPORT": "report.html"},
			want: Config{Host: "", Port: 0, Period: 2 * time.Second, Export: "out.html.gz"}},
		{name: "no page", arg: "port=-1&export=r.html", want: Config{Host: "localhost", Port: NoServer, Period: time.Second, Export: "r.html"}},
		{name: "open alone", arg: "open", want: Config{Host: "localhost", Port: 5665, Period: time.Second, Open: true}},
		{name: "xk6-dashboard's report", arg: "report=r.html", want: Config{Host: "localhost", Port: 5665, Period: time.Second, Export: "r.html"}},
		{name: "unknown parameters are listed, as k6 ignores them", arg: "prot=1&port=80&a=b",
			want: Config{Host: "localhost", Port: 80, Period: time.Second, Ignored: []string{"a", "prot"}}},
		{name: "bad port", arg: "port=http", wantErr: `web-dashboard parameter port: "http" is not a port: expected 0 to 65535, or -1 for no page`},
		{name: "port out of range", arg: "port=70000", wantErr: `"70000" is not a port`},
		{name: "bad period", arg: "period=0s", wantErr: `web-dashboard parameter period: "0s" is not a positive duration`},
		{name: "bad environment period", env: map[string]string{"K6_WEB_DASHBOARD_PERIOD": "soon"}, wantErr: `K6_WEB_DASHBOARD_PERIOD: "soon" is not a positive duration`},
		{name: "bad open", arg: "open=yes please", wantErr: `web-dashboard parameter open: "yes please": expected true or false`},
		{name: "bad query", arg: "port=%zz", wantErr: "expected key=value pairs joined by &"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseConfig(tc.arg, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestEnabled(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "K6_WEB_DASHBOARD" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		out     bool
		env     string
		want    bool
		wantErr bool
	}{
		{out: true, want: true}, {env: "true", want: true}, {env: "false"}, {}, {env: "1", want: true}, {env: "on", wantErr: true},
	} {
		got, err := Enabled(tc.out, env(tc.env))
		if tc.wantErr {
			require.ErrorContains(t, err, `K6_WEB_DASHBOARD="on": expected true or false`)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "out=%v K6_WEB_DASHBOARD=%q", tc.out, tc.env)
	}
}
