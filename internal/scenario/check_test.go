package scenario

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// evalChecks parses checks (a YAML list) through Parse and evaluates each on one
// response, sharing one Response as a step's checks do.
func evalChecks(t *testing.T, checks string, r *Response) []bool {
	t.Helper()
	tst, err := Parse("t.yaml", []byte("flow:\n  - url: http://h/\n    checks: "+checks+"\n"))
	require.NoError(t, err)
	var got []bool
	for _, c := range tst.Scenarios[0].Flow.Steps[0].Checks {
		got = append(got, c.Eval(r))
	}
	return got
}

func TestCheckEval(t *testing.T) {
	t.Parallel()
	const body = `{"status":"ok","id":42,"code":"42","data":{"items":[{"id":1},{"id": 42}],"name":"tea","flag":true,"none":null,"obj":{"a":1}}}`
	for _, tc := range []struct {
		name   string
		check  string
		status int
		header http.Header
		body   string
		want   bool
	}{
		{name: "status", check: "{status: 200}", status: 200, want: true},
		{name: "other status", check: "{status: 200}", status: 500},
		{name: "body contains", check: `{bodyContains: '"ok"'}`, body: body, want: true},
		{name: "body lacks", check: "{bodyContains: nope}", body: body},
		{name: "body regex", check: `{bodyRegex: 'id":\s*\d+'}`, body: body, want: true},
		{name: "body regex no match", check: `{bodyRegex: 'id":\s*x'}`, body: body},
		{name: "present number without equals", check: "{jsonPath: id}", body: body, want: true},
		{name: "present string without equals", check: "{jsonPath: code}", body: body, want: true},
		{name: "present null without equals", check: "{jsonPath: data.none}", body: body, want: true},
		{name: "present list without equals", check: "{jsonPath: data.items}", body: body, want: true},
		{name: "missing field", check: "{jsonPath: nope}", body: body},
		{name: "missing nested field", check: "{jsonPath: data.nope.id}", body: body},
		{name: "number equals number", check: "{jsonPath: id, equals: 42}", body: body, want: true},
		{name: "string is not number", check: "{jsonPath: code, equals: 42}", body: body},
		{name: "number is not string", check: `{jsonPath: id, equals: "42"}`, body: body},
		{name: "string equals string", check: `{jsonPath: code, equals: "42"}`, body: body, want: true},
		{name: "number forms agree", check: "{jsonPath: id, equals: 42.0}", body: body, want: true},
		{name: "nested path", check: "{jsonPath: data.name, equals: tea}", body: body, want: true},
		{name: "nested path other value", check: "{jsonPath: data.name, equals: coffee}", body: body},
		{name: "array index", check: "{jsonPath: 'data.items[1].id', equals: 42}", body: body, want: true},
		{name: "array index out of range", check: "{jsonPath: 'data.items[2].id'}", body: body},
		{name: "index into a mapping", check: "{jsonPath: 'data[0]'}", body: body},
		{name: "key into a list", check: "{jsonPath: data.items.id}", body: body},
		{name: "top-level array", check: "{jsonPath: '[0]', equals: 1}", body: "[1, 2]", want: true},
		{name: "bool", check: "{jsonPath: data.flag, equals: true}", body: body, want: true},
		{name: "bool is not number", check: "{jsonPath: data.flag, equals: 1}", body: body},
		{name: "null", check: "{jsonPath: data.none, equals: null}", body: body, want: true},
		{name: "missing is not null", check: "{jsonPath: data.nothing, equals: null}", body: body},
		{name: "mapping", check: "{jsonPath: data.obj, equals: {a: 1}}", body: body, want: true},
		{name: "mapping other value", check: "{jsonPath: data.obj, equals: {a: 2}}", body: body},
		{name: "not JSON", check: "{jsonPath: id}", body: `{"id": 42`},
		{name: "empty body", check: "{jsonPath: id}"},
		{name: "plain text", check: "{jsonPath: id}", body: "id: 42"},
		{name: "header equals", check: "{header: content-type, equals: application/json}",
			header: http.Header{"Content-Type": {"text/plain", "application/json"}}, want: true},
		{name: "header other value", check: "{header: content-type, equals: application/json}",
			header: http.Header{"Content-Type": {"text/plain"}}},
		{name: "header present", check: "{header: X-Request-Id}", header: http.Header{"X-Request-Id": {"1"}}, want: true},
		{name: "header absent", check: "{header: X-Request-Id}", header: http.Header{"X-Other": {"1"}}},
		{name: "header empty value expected", check: `{header: X-A, equals: ""}`, header: http.Header{"X-A": {""}}, want: true},
		{name: "header empty value expected, other given", check: `{header: X-A, equals: ""}`, header: http.Header{"X-A": {"1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &Response{Status: tc.status, Header: tc.header, Body: []byte(tc.body)}
			require.Equal(t, []bool{tc.want}, evalChecks(t, "["+tc.check+"]", r))
		})
	}
	require.False(t, (&Check{Kind: "nope"}).Eval(&Response{Status: 200}))
}

// TestResponseDecodesOnce evaluates several JSON checks on one Response: the body is
// decoded by the first and read again by none.
func TestResponseDecodesOnce(t *testing.T) {
	t.Parallel()
	r := &Response{Status: 200, Body: []byte(`{"id": 42, "code": "42"}`)}
	require.Equal(t, []bool{true, false}, evalChecks(t, "[{jsonPath: id}, {jsonPath: code, equals: 42}]", r))
	r.Body = []byte("not JSON any more")
	require.Equal(t, []bool{true, true, false}, evalChecks(t, `[{jsonPath: id, equals: 42}, {jsonPath: code, equals: "42"}, {bodyContains: id}]`, r),
		"JSON checks read the first decode; body checks read Body")

	r = &Response{Body: []byte("[")}
	require.Equal(t, []bool{false, false}, evalChecks(t, "[{jsonPath: '[0]'}, {jsonPath: '[0]'}]", r))
	require.True(t, r.decoded)
	require.False(t, r.isJSON)
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
	require.Equal(t, "ramping-arrival-rate", suggest("ramping-arival-rate", c)) //nolint:misspell // the typo is what suggest corrects
	require.Empty(t, suggest("xyz", c))
	require.Empty(t, suggest("a", nil))
}

// TestCheckValueCanonical pins Check.Value of JSON checks to what json.Marshal makes of
// the decoded expected value, and Eval to comparing decoded values.
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
	require.True(t, c[0].Eval(&Response{Body: []byte(`{"a":{"a":[1000.0,"x<y"],"z":1}}`)}))
	require.True(t, c[1].Eval(&Response{Body: []byte(`{"a":1e20}`)}))
	require.True(t, c[3].Eval(&Response{Body: []byte(`{"a":"42"}`)}))
	require.False(t, c[3].Eval(&Response{Body: []byte(`{"a":42}`)}), "a string is not a number")
	require.True(t, c[4].Eval(&Response{Body: []byte(`{"a":null}`)}))
	require.False(t, c[4].Eval(&Response{Body: []byte(`{}`)}), "a missing field is not null")
}
