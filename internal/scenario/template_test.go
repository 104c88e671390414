package scenario

import (
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTemplate(t *testing.T) {
	t.Parallel()
	vars := &Vars{VU: 7, Iter: 42, Env: map[string]string{"HOST": "h", "EMPTY": ""}}
	for _, tc := range []struct {
		in      string
		static  bool
		want    string // rendered with vars
		wantErr string
	}{
		{in: "", static: true, want: ""},
		{in: "http://127.0.0.1:8099/", static: true, want: "http://127.0.0.1:8099/"},
		{in: "price: $5 and $$", static: true, want: "price: $5 and $$"},
		{in: "literal $${__VU}", static: true, want: "literal ${__VU}"},
		{in: "vu ${__VU} iter ${__ITER}", want: "vu 7 iter 42"},
		{in: "${__ENV.HOST}/${__ENV.NOPE}", want: "h/"},
		{in: "${__ENV.NOPE:-http://127.0.0.1:8099}/x", want: "http://127.0.0.1:8099/x"},
		{in: "${__ENV.EMPTY:-d}", want: "d"},
		{in: "${__ENV.HOST:-d}", want: "h"},
		{in: "${__ENV.A:-}", want: ""},
		{in: "${__RANDOM_INT(3,3)}", want: "3"},
		{in: "${__RANDOM_INT( -2 , -2 )}", want: "-2"},
		{in: "${__VU", wantErr: `unclosed "${__VU"; expected ${NAME} with NAME one of ${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default}, ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}, ${__UUID}`},
		{in: "${}", wantErr: `unknown variable ${}; expected one of ${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default}, ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}, ${__UUID}`},
		{in: "${__vu}", wantErr: `unknown variable ${__vu}; expected one of ${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default}, ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}, ${__UUID}; did you mean "__VU"?`},
		{in: "${__UIDD}", wantErr: `unknown variable ${__UIDD}; expected one of ${__VU}, ${__ITER}, ${__ENV.NAME}, ${__ENV.NAME:-default}, ${__RANDOM_INT(min,max)}, ${__RANDOM_STRING(n)}, ${__UUID}; did you mean "__UUID"?`},
		{in: "${__ENV.}", wantErr: `bad environment variable name "" in ${__ENV.}; expected letters, digits and underscores, not starting with a digit`},
		{in: "${__ENV.1A}", wantErr: `bad environment variable name "1A" in ${__ENV.1A}; expected letters, digits and underscores, not starting with a digit`},
		{in: "${__RANDOM_INT(1)}", wantErr: `bad ${__RANDOM_INT(1)}; expected ${__RANDOM_INT(min,max)} with two integers`},
		{in: "${__RANDOM_INT(a,2)}", wantErr: `bad ${__RANDOM_INT(a,2)}; expected ${__RANDOM_INT(min,max)} with two integers`},
		{in: "${__RANDOM_INT(2,1)}", wantErr: `bad ${__RANDOM_INT(2,1)}: min 2 is greater than max 1`},
		{in: "${__RANDOM_STRING(0)}", wantErr: `bad ${__RANDOM_STRING(0)}; expected ${__RANDOM_STRING(n)} with n from 1 to 1048576`},
		{in: "${__RANDOM_STRING(x)}", wantErr: `bad ${__RANDOM_STRING(x)}; expected ${__RANDOM_STRING(n)} with n from 1 to 1048576`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			tpl, err := ParseTemplate(tc.in)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.in, tpl.String())
			require.Equal(t, tc.static, tpl.Static())
			require.Equal(t, tc.want, string(tpl.Render(nil, vars)))
		})
	}
}

func TestTemplateRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	v := &Vars{Rand: r}
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	strRE := regexp.MustCompile(`^[A-Za-z0-9]{12}$`)
	tpl, err := ParseTemplate("${__UUID}")
	require.NoError(t, err)
	seen := map[string]bool{}
	for range 1000 {
		u := string(tpl.Render(nil, v))
		require.Regexp(t, uuidRE, u)
		seen[u] = true
	}
	require.Len(t, seen, 1000)

	tpl, err = ParseTemplate("${__RANDOM_STRING(12)}")
	require.NoError(t, err)
	require.Regexp(t, strRE, string(tpl.Render(nil, v)))
	require.Regexp(t, strRE, string(tpl.Render(nil, nil)), "nil Vars use the global source")

	tpl, err = ParseTemplate("${__RANDOM_INT(1,6)}")
	require.NoError(t, err)
	counts := map[string]int{}
	for range 6000 {
		counts[string(tpl.Render(nil, v))]++
	}
	require.Len(t, counts, 6, "bounds are inclusive")
	for k, n := range counts {
		require.Contains(t, []string{"1", "2", "3", "4", "5", "6"}, k)
		require.InDelta(t, 1000, n, 200)
	}

	// The extremes of int64 do not overflow.
	for _, src := range []string{
		"${__RANDOM_INT(-9223372036854775808,9223372036854775807)}",
		"${__RANDOM_INT(-9223372036854775808,1)}",
		"${__RANDOM_INT(9223372036854775807,9223372036854775807)}",
	} {
		tpl, err = ParseTemplate(src)
		require.NoError(t, err)
		for range 100 {
			n, err := strconv.ParseInt(string(tpl.Render(nil, v)), 10, 64)
			require.NoError(t, err)
			if src == "${__RANDOM_INT(9223372036854775807,9223372036854775807)}" {
				require.Equal(t, int64(math.MaxInt64), n)
			}
		}
	}
}

func TestTemplateRenderAppends(t *testing.T) {
	t.Parallel()
	tpl, err := ParseTemplate("/u/${__VU}/${__ITER}")
	require.NoError(t, err)
	buf := tpl.Render([]byte("GET "), &Vars{VU: 1, Iter: 2})
	require.Equal(t, "GET /u/1/2", string(buf))
	var nilT *Template
	require.Equal(t, "x", string(nilT.Render([]byte("x"), nil)))
	require.Empty(t, nilT.String())
	require.True(t, nilT.Static())
	require.Equal(t, "/u/0/0", string(tpl.Render(nil, nil)))
}

func TestTemplateRenderAllocs(t *testing.T) {
	static, err := ParseTemplate("http://127.0.0.1:8099/orders")
	require.NoError(t, err)
	dynamic, err := ParseTemplate("http://127.0.0.1:8099/orders/${__VU}/${__ITER}/${__RANDOM_INT(1,100)}/${__UUID}/${__RANDOM_STRING(8)}")
	require.NoError(t, err)
	v := &Vars{VU: 3, Iter: 4, Rand: rand.New(rand.NewPCG(1, 2))}
	buf := make([]byte, 0, 256)
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = static.Render(buf[:0], v) }))
	require.Zero(t, testing.AllocsPerRun(100, func() { buf = dynamic.Render(buf[:0], v) }))
}

func TestTemplateBind(t *testing.T) {
	t.Parallel()
	tpl, err := ParseTemplate("${__ENV.A}-${__ENV.B:-b}-${__VU}-$${x}-${__ENV.C}")
	require.NoError(t, err)
	b, missing := tpl.bind(map[string]string{"A": "a"})
	require.Equal(t, []string{"C"}, missing)
	require.Equal(t, "a-b-${__VU}-$${x}-", b.String())
	require.False(t, b.Static())
	require.Equal(t, "a-b-5-${x}-", string(b.Render(nil, &Vars{VU: 5})))
	require.Equal(t, "a-b-${}-${x}-", b.pattern())

	b, missing = tpl.bind(map[string]string{"A": "a", "C": "c", "B": "B"})
	require.Empty(t, missing)
	require.Equal(t, "a-B-${__VU}-$${x}-c", b.String())
}

func BenchmarkTemplateRender(b *testing.B) {
	tpl, err := ParseTemplate("http://127.0.0.1:8099/orders/${__VU}?iter=${__ITER}&id=${__UUID}")
	require.NoError(b, err)
	v := &Vars{VU: 3, Iter: 4, Rand: rand.New(rand.NewPCG(1, 2))}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = tpl.Render(buf[:0], v)
	}
}

// TestTemplateLarge guards against quadratic parsing and binding of long templates.
func TestTemplateLarge(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("a${__ENV.A}$${x}$", 50_000)
	tpl, err := ParseTemplate(src)
	require.NoError(t, err)
	b, missing := tpl.bind(map[string]string{"A": "b"})
	require.Empty(t, missing)
	require.True(t, b.Static())
	require.Len(t, b.parts, 1)
	require.Equal(t, strings.Repeat("ab${x}$", 50_000), string(b.Render(nil, nil)))
}
