package scenario

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckEval(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(`
flow:
  - url: http://h/
    checks:
      - status: 200
      - bodyContains: '"ok"'
      - bodyRegex: 'id":\s*\d+'
      - {jsonPath: 'data.items[1].id', equals: 42}
      - {jsonPath: data.name, equals: tea}
      - {jsonPath: data.flag, equals: true}
      - {jsonPath: data.none, equals: null}
      - {jsonPath: data.obj, equals: {a: 1}}
      - jsonPath: data.items
      - {jsonPath: '[0]', equals: 1}
      - {header: content-type, equals: application/json}
      - header: X-Request-Id
`))
	require.NoError(t, err)
	checks := tst.Scenarios[0].Flow.Steps[0].Checks
	body := []byte(`{"status":"ok","data":{"items":[{"id":1},{"id": 42}],"name":"tea","flag":true,"none":null,"obj":{"a":1}}}`)
	h := http.Header{"Content-Type": {"text/plain", "application/json"}, "X-Request-Id": {"1"}}
	var got []bool
	for i := range checks {
		got = append(got, checks[i].Eval(200, h, body))
	}
	require.Equal(t, []bool{true, true, true, true, true, true, true, true, true, false, true, true}, got)

	// Everything fails on another response.
	body = []byte(`{"status":"bad","data":{"items":[{"id":"42"}],"name":"coffee","flag":1,"obj":{"a":2}}}`)
	got = got[:0]
	for i := range checks {
		got = append(got, checks[i].Eval(500, http.Header{"Content-Type": {"text/plain"}}, body))
	}
	require.Equal(t, []bool{false, false, false, false, false, false, false, false, true, false, false, false}, got)

	// A top-level array, and a body that is not JSON.
	require.True(t, checks[9].Eval(200, nil, []byte(`[1, 2]`)))
	require.False(t, checks[9].Eval(200, nil, []byte(`[`)))
	require.False(t, (&Check{Kind: "nope"}).Eval(200, nil, nil))
}

func TestParseJSONPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, dotted, err string
	}{
		{in: "a", dotted: "a"},
		{in: "a.b.c", dotted: "a.b.c"},
		{in: "data.items[0].id", dotted: "data.items.0.id"},
		{in: "[2][3]", dotted: "2.3"},
		{in: "a[10][0].b", dotted: "a.10.0.b"},
		{in: "", err: "empty path"},
		{in: "a..b", err: "empty key"},
		{in: "a.", err: "empty key"},
		{in: "a[", err: "unclosed ["},
		{in: "a[-1]", err: `index "-1" is not a number from 0`},
		{in: "a[0]b", err: "expected [ after ]"},
		{in: "a]", err: "unmatched ]"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			p, err := parseJSONPath(tc.in)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.dotted, dottedPath(p))
		})
	}
}

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string
		err  string
	}{
		{in: "30s", want: "30s"},
		{in: "1m30s", want: "1m30s"},
		{in: "2h", want: "2h0m0s"},
		{in: "500ms", want: "500ms"},
		{in: "1.5s", want: "1.5s"},
		{in: "250us", want: "250µs"},
		{in: "0", want: "0s"},
		{in: "1d", want: "24h0m0s"},
		{in: "1d12h", want: "36h0m0s"},
		{in: " 10s ", want: "10s"},
		{in: "", err: "empty duration"},
		{in: "10", err: "missing unit"},
		{in: "-1s", err: "negative duration"},
		{in: "1x", err: "invalid duration"},
		{in: "1dx", err: "invalid duration"},
		{in: "99999999999d", err: "invalid duration"},
		{in: "106751d", want: "2562024h0m0s"},
		{in: "106752d", err: "duration out of range"},
		{in: "106751d24h", err: "duration out of range"},
		{in: "3000000h", err: "invalid duration"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDuration(tc.in)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, d.String())
		})
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	c := []string{"duration", "iterations", "vus", "ramping-arrival-rate", "ramping-vus"}
	require.Equal(t, "duration", suggest("duraton", c))
	require.Equal(t, "duration", suggest("Duration", c))
	require.Equal(t, "vus", suggest("vsu", c), "a transposition is one edit")
	require.Equal(t, "ramping-arrival-rate", suggest("ramping-arival-rate", c))
	require.Equal(t, "", suggest("xyz", c))
	require.Equal(t, "", suggest("a", nil))
}

// TestCheckValueCanonical pins Check.Value of JSON checks to what json.Marshal makes of
// the decoded field, so that code comparing texts agrees with Eval.
func TestCheckValueCanonical(t *testing.T) {
	t.Parallel()
	tst, err := Parse("t.yaml", []byte(`
flow:
  - url: http://h/
    checks:
      - {jsonPath: a, equals: {z: 1, a: [1e3, "x<y"]}}
      - {jsonPath: a, equals: 100000000000000000000}
      - {jsonPath: a, equals: 2.50}
      - {jsonPath: a, equals: "42"}
      - {jsonPath: a, equals: ~}
`))
	require.NoError(t, err)
	var got []string
	for _, c := range tst.Scenarios[0].Flow.Steps[0].Checks {
		got = append(got, c.Value)
	}
	require.Equal(t, []string{`{"a":[1000,"x\u003cy"],"z":1}`, "100000000000000000000", "2.5", "42", "null"}, got)
	require.Equal(t, `a is {"z":1,"a":[1000,"x<y"]}`, tst.Scenarios[0].Flow.Steps[0].Checks[0].Name)
	c := tst.Scenarios[0].Flow.Steps[0].Checks
	require.True(t, c[0].Eval(200, nil, []byte(`{"a":{"a":[1000.0,"x<y"],"z":1}}`)))
	require.True(t, c[1].Eval(200, nil, []byte(`{"a":1e20}`)))
	require.True(t, c[3].Eval(200, nil, []byte(`{"a":"42"}`)))
	require.False(t, c[3].Eval(200, nil, []byte(`{"a":42}`)), "a string is not a number")
	require.True(t, c[4].Eval(200, nil, []byte(`{"a":null}`)))
	require.False(t, c[4].Eval(200, nil, []byte(`{}`)), "a missing field is not null")
}
