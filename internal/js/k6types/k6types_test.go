package k6types

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func parseFile(t *testing.T, module string) *Module {
	t.Helper()
	p := filepath.Join("..", "testdata", "types-k6", filepath.FromSlash(module), "index.d.ts")
	if module == "global" {
		p = filepath.Join("..", "testdata", "types-k6", "global.d.ts")
	}
	src, err := os.ReadFile(p)
	require.NoError(t, err)
	m, err := Parse(p, src)
	require.NoError(t, err)
	return m
}

// TestParseTypesK6 reads @types/k6's own declarations and finds what they declare,
// checked against the files by hand: values, default exports, members with nested
// object members, inheritance, globals; protected and index members left out.
func TestParseTypesK6(t *testing.T) {
	t.Parallel()
	http := parseFile(t, "http")
	require.Equal(t, "namespace", http.Default)
	values := http.Values()
	require.Contains(t, values, "asyncRequest")
	require.Contains(t, values, "OCSP_REASON_UNSPECIFIED")
	require.Contains(t, values, "CookieJar", "a class is a value")
	require.NotContains(t, values, "Params", "an interface is no value")
	require.NotContains(t, values, "FileData", "an abstract class is no value")
	resp := http.Members("Response")
	for _, n := range []string{"body", "timings.waiting", "ocsp.status", "request.headers", "html", "submitForm", "json"} {
		require.Contains(t, resp, n)
	}
	require.Equal(t, []string{"clear", "cookiesForURL", "delete", "set"}, http.Members("CookieJar"), "protected __brand is not API")
	require.Equal(t, "Params", mustDecl(t, http, "RefinedParams").Extends, "the type parameters' extends is not the interface's")

	metrics := parseFile(t, "metrics")
	require.Equal(t, []string{"add", "name"}, metrics.Members("Counter"), "inherited from Metric")

	exec := parseFile(t, "execution")
	require.Contains(t, exec.Members("vu"), "metrics.metadata")

	fs := parseFile(t, "experimental/fs")
	require.Equal(t, []string{"Current", "End", "Start"}, fs.Members("SeekMode"))

	secrets := parseFile(t, "secrets")
	require.Equal(t, "_default", secrets.Default)
	require.Empty(t, secrets.Values(), "nothing exported by name")
	require.Equal(t, []string{"get", "source"}, secrets.Members("_default"))

	global := parseFile(t, "global")
	require.Equal(t, []string{"__ENV", "__ITER", "__VU", "open"}, global.Values())
	require.Equal(t, []string{"resolve"}, global.Members("ImportMeta"))
	require.Equal(t, 76, mustDecl(t, global, "ImportMeta").Line)

	ws := parseFile(t, "websockets")
	require.Contains(t, ws.Members("WebSocket"), "CLOSED")
	require.Contains(t, ws.Members("Blob"), "arrayBuffer")
}

func mustDecl(t *testing.T, m *Module, name string) Decl {
	t.Helper()
	d, ok := m.Decl(name)
	require.True(t, ok, name)
	return d
}

// TestParseErrors: malformed declarations are errors naming the file and line.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		"export const a = \"x;\n":                      `f.d.ts: line 1: unterminated string`,
		"export interface A {\n  x: number;\n":         `f.d.ts: unclosed brace at the end of the file`,
		"export function a(): void;\n}\n":              `f.d.ts: line 2: unbalanced '}'`,
		"/* open\nexport function a(): void;\n":        `f.d.ts: line 1: unclosed comment`,
		"export function (): void;\n":                  `f.d.ts:1: a function with no name`,
		"\n\nexport const x = 1;\nexport class {\n}\n": `f.d.ts:4: a class with no name`,
	} {
		_, err := Parse("f.d.ts", []byte(src))
		require.EqualError(t, err, want, src)
	}
}

// FuzzParse: no input panics or loops; what parses has named declarations.
func FuzzParse(f *testing.F) {
	for _, m := range []string{"http", "html", "execution", "net/grpc", "secrets", "websockets", "experimental/streams"} {
		src, err := os.ReadFile(filepath.Join("..", "testdata", "types-k6", filepath.FromSlash(m), "index.d.ts"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("declare global { var x: {a: 1}; }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("f.d.ts", src)
		if err != nil {
			return
		}
		for _, d := range m.Decls {
			if d.Name == "" {
				t.Fatalf("a declaration without a name: %+v", d)
			}
			m.Members(d.Name)
		}
	})
}
