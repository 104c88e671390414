package output

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/exitcode"
)

func TestParseSpecs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      []string
		env     map[string]string
		want    []Spec
		wantErr string
	}{
		{name: "none"},
		{name: "json file", in: []string{"json=results.json"},
			want: []Spec{{Kind: JSON, Arg: "results.json", File: "results.json", SaveInterval: time.Second}}},
		{name: "json alone is stdout", in: []string{"json"},
			want: []Spec{{Kind: JSON, File: Stdout, SaveInterval: time.Second}}},
		{name: "json takes the name verbatim", in: []string{"json=fileName=a,b.json.gz"},
			want: []Spec{{Kind: JSON, Arg: "fileName=a,b.json.gz", File: "fileName=a,b.json.gz", SaveInterval: time.Second}}},
		{name: "csv alone is file.csv", in: []string{"csv"},
			want: []Spec{{Kind: CSV, File: "file.csv", TimeFormat: Unix, SaveInterval: time.Second}}},
		{name: "csv file", in: []string{"csv=out/r.csv.gz"},
			want: []Spec{{Kind: CSV, Arg: "out/r.csv.gz", File: "out/r.csv.gz", TimeFormat: Unix, SaveInterval: time.Second}}},
		{name: "csv options", in: []string{"csv=fileName=a.csv,timeFormat=rfc3339_nano,saveInterval=2s"},
			want: []Spec{{Kind: CSV, Arg: "fileName=a.csv,timeFormat=rfc3339_nano,saveInterval=2s", File: "a.csv", TimeFormat: RFC3339Nano, SaveInterval: 2 * time.Second}}},
		{name: "csv option without file", in: []string{"csv=timeFormat=unix_milli"},
			want: []Spec{{Kind: CSV, Arg: "timeFormat=unix_milli", File: "file.csv", TimeFormat: UnixMilli, SaveInterval: time.Second}}},
		{name: "csv env", in: []string{"csv"}, env: map[string]string{"K6_CSV_FILENAME": "env.csv", "K6_CSV_TIME_FORMAT": "unix_micro", "K6_CSV_SAVE_INTERVAL": "3s"},
			want: []Spec{{Kind: CSV, File: "env.csv", TimeFormat: UnixMicro, SaveInterval: 3 * time.Second}}},
		{name: "the argument wins over the env", in: []string{"csv=timeFormat=unix_nano"}, env: map[string]string{"K6_CSV_FILENAME": "env.csv", "K6_CSV_TIME_FORMAT": "rfc3339"},
			want: []Spec{{Kind: CSV, Arg: "timeFormat=unix_nano", File: "env.csv", TimeFormat: UnixNano, SaveInterval: time.Second}}},
		{name: "the env is csv's only", in: []string{"json"}, env: map[string]string{"K6_CSV_FILENAME": "env.csv"},
			want: []Spec{{Kind: JSON, File: Stdout, SaveInterval: time.Second}}},
		{name: "bad csv env", in: []string{"csv=a.csv"}, env: map[string]string{"K6_CSV_SAVE_INTERVAL": "nope"},
			wantErr: `output "csv=a.csv": K6_CSV_SAVE_INTERVAL: saveInterval: time: invalid duration "nope"`},
		{name: "remote write is the caller's", in: []string{"experimental-prometheus-rw", "experimental-prometheus-rw=ignored"},
			want: []Spec{{Kind: PrometheusRW}, {Kind: PrometheusRW, Arg: "ignored"}}},
		{name: "several", in: []string{"json=a.json", "csv=a.csv", "experimental-prometheus-rw"},
			want: []Spec{
				{Kind: JSON, Arg: "a.json", File: "a.json", SaveInterval: time.Second},
				{Kind: CSV, Arg: "a.csv", File: "a.csv", TimeFormat: Unix, SaveInterval: time.Second},
				{Kind: PrometheusRW},
			}},
		{name: "unknown", in: []string{"influxdb=http://x", "json=a.json"},
			wantErr: `invalid output type "influxdb", available types are: csv, experimental-prometheus-rw, json, web-dashboard`},
		{name: "empty", in: []string{""},
			wantErr: `invalid output type "", available types are: csv, experimental-prometheus-rw, json, web-dashboard`},
		{name: "bad csv options", in: []string{"csv=timeFormat=iso", "csv=fileName=x.csv,bogus=1", "csv=fileName=x.csv,saveInterval=-1s", "csv=fileName=,timeFormat=unix", "csv=a=b,c"},
			wantErr: `output "csv=timeFormat=iso": timeFormat "iso" is not one of unix, unix_nano, unix_micro, unix_milli, rfc3339, rfc3339_nano` + "\n" +
				`output "csv=fileName=x.csv,bogus=1": unknown option "bogus": the csv options are fileName, timeFormat and saveInterval` + "\n" +
				`output "csv=fileName=x.csv,saveInterval=-1s": saveInterval -1s is not positive` + "\n" +
				`output "csv=fileName=,timeFormat=unix": fileName is empty` + "\n" +
				`output "csv=a=b,c": unknown option "a": the csv options are fileName, timeFormat and saveInterval`},
		{name: "same file twice", in: []string{"json=r", "csv=r"},
			wantErr: `output "csv=r": another output writes r too`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSpecs(tc.in, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				require.Equal(t, exitcode.InvalidConfig, exitcode.Of(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// FuzzParseSpec: any value parses or fails with an error; a parsed file output has a
// file, a valid time format and a positive interval, and its String is the input.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"json", "json=a.json", "csv", "csv=a.csv.gz", "csv=fileName=a,timeFormat=unix_nano,saveInterval=1m", "experimental-prometheus-rw=x", "bogus"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseSpec(in)
		if err != nil {
			require.Equal(t, Spec{}, s)
			return
		}
		again, err := ParseSpec(s.String())
		require.NoError(t, err)
		require.Equal(t, s, again)
		switch s.Kind {
		case JSON:
			require.NotEmpty(t, s.File)
			require.Positive(t, s.SaveInterval)
		case CSV:
			require.NotEmpty(t, s.File)
			require.True(t, s.TimeFormat.valid())
			require.Positive(t, s.SaveInterval)
			require.False(t, strings.Contains(s.Arg, "=") && s.File == s.Arg, "options taken as a file name")
		case PrometheusRW, WebDashboard:
		default:
			t.Fatalf("unknown kind %q parsed", s.Kind)
		}
	})
}
