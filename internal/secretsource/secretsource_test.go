package secretsource

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParse: k6's file and mock sources, named or not, one of them the default.
func TestParse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s")
	require.NoError(t, os.WriteFile(path, []byte("a=1\n\nb=two=2\n"), 0o600))
	ctx := context.Background()

	s, err := Parse([]string{"file=" + path})
	require.NoError(t, err)
	require.Equal(t, []string{"file"}, s.Names())
	v, err := s.Get(ctx, "", "b")
	require.NoError(t, err)
	require.Equal(t, "two=2", v, "a single source is the default")
	v, err = s.Get(ctx, "file", "a")
	require.NoError(t, err)
	require.Equal(t, "1", v, "an unnamed source is called by its kind")

	s, err = Parse([]string{"mock=default,cool=\"cool secret\"", "mock=name=another,cool=not cool", "file=name=f,filename=" + path})
	require.NoError(t, err)
	require.Equal(t, []string{"mock", "another", "f"}, s.Names())
	for _, tc := range []struct{ source, key, want string }{
		{"", "cool", "cool secret"}, {"mock", "cool", "cool secret"}, {"another", "cool", "not cool"}, {"f", "a", "1"},
	} {
		v, err := s.Get(ctx, tc.source, tc.key)
		require.NoError(t, err)
		require.Equal(t, tc.want, v, "%s/%s", tc.source, tc.key)
	}

	s, err = Parse([]string{"mock=x=1", "mock=x=2", "file=name=d,filename=" + path + ",default"})
	require.NoError(t, err)
	require.Equal(t, []string{"mock", "mock1", "d"}, s.Names())
	v, err = s.Get(ctx, "", "a")
	require.NoError(t, err)
	require.Equal(t, "1", v, "default after the filename")
}

// TestParseErrors: bad specs name themselves and what is wrong.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad")
	require.NoError(t, os.WriteFile(bad, []byte("a=1\nnovalue\n"), 0o600))
	for _, tc := range []struct {
		specs   []string
		wantErr string
	}{
		{[]string{"vault=x"}, `--secret-source "vault=x": unknown source "vault"; expected file=PATH or mock=KEY=VALUE`},
		{[]string{"url=urlTemplate=http://x/{key}"}, `--secret-source "url=urlTemplate=http://x/{key}": fetching secrets over the network is not supported by Tidemark; use file=PATH or mock=KEY=VALUE`},
		{[]string{"cloud"}, `--secret-source "cloud": fetching secrets over the network is not supported by Tidemark; use file=PATH or mock=KEY=VALUE`},
		{[]string{"mock=a"}, `--secret-source "mock=a": "a": expected mock=KEY=VALUE,…`},
		{[]string{"file=" + bad}, `--secret-source "file=` + bad + `": ` + bad + `:2: expected KEY=VALUE`},
		{[]string{"file=name=x"}, `--secret-source "file=name=x": no file; expected file=PATH or file=name=NAME,filename=PATH`},
		{[]string{"file=name=x,path=y"}, `--secret-source "file=name=x,path=y": unknown parameter "path"; expected file=PATH or file=name=NAME,filename=PATH[,default]`},
		{[]string{"mock=name=a,k=1", "mock=name=a,k=2"}, `--secret-source "mock=name=a,k=2": a secret source is already named "a"`},
		{[]string{"mock=default,k=1", "mock=name=b,default,k=2"}, `--secret-source "mock=name=b,default,k=2": "mock" is already the default secret source`},
	} {
		_, err := Parse(tc.specs)
		require.EqualError(t, err, tc.wantErr)
	}
	_, err := Parse([]string{"file=" + filepath.Join(t.TempDir(), "missing")})
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestGetErrors: a secret that is not there names the source and the key, never a
// value; no default among several sources, an unknown source and no source at all
// say so.
func TestGetErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Parse([]string{"mock=name=a,k=hunter2", "mock=name=b,k=swordfish"})
	require.NoError(t, err)
	_, err = s.Get(ctx, "a", "missing")
	require.EqualError(t, err, `get secret "missing" from source "a": not found`)
	require.ErrorIs(t, err, ErrNotFound)
	_, err = s.Get(ctx, "", "k")
	require.EqualError(t, err, `get secret "k": no default secret source among a, b; mark one with default (--secret-source=mock=default,…) or use secrets.source(name)`)
	_, err = s.Get(ctx, "c", "k")
	require.EqualError(t, err, `get secret "k": no secret source named "c"; the sources are a, b`)
	var none *Set
	_, err = none.Get(ctx, "", "k")
	require.EqualError(t, err, `get secret "k": no secret source is configured; use --secret-source`)
	empty, err := Parse(nil)
	require.NoError(t, err)
	_, err = empty.Get(ctx, "", "k")
	require.EqualError(t, err, `get secret "k": no secret source is configured; use --secret-source`)
	require.Equal(t, "a hunter2", none.Redact("a hunter2"))
}

// fetched is a source whose values are not known before they are fetched (as k6's
// url source).
type fetched map[string]string

func (f fetched) Get(_ context.Context, key string) (string, error) {
	v, ok := f[key]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

// TestRedact: the values of file and mock sources are redacted from the start, the
// longest first; a source's value is redacted once fetched; empty values never are.
func TestRedact(t *testing.T) {
	t.Parallel()
	s, err := Parse([]string{"mock=name=m,short=abc,long=abcdef,empty="})
	require.NoError(t, err)
	require.Equal(t, "x ***SECRET_REDACTED*** y ***SECRET_REDACTED*** z", s.Redact("x abcdef y abc z"))
	require.Equal(t, "nothing secret", s.Redact("nothing secret"))

	s = New(map[string]Source{"u": fetched{"k": "late-value", "e": ""}}, []string{"u"}, "u")
	require.Equal(t, "late-value", s.Redact("late-value"), "not fetched yet")
	v, err := s.Get(context.Background(), "", "k")
	require.NoError(t, err)
	require.Equal(t, "late-value", v)
	require.Equal(t, "got ***SECRET_REDACTED***", s.Redact("got late-value"))
	_, err = s.Get(context.Background(), "", "e")
	require.NoError(t, err)
	require.Equal(t, "got ***SECRET_REDACTED*** and", s.Redact("got late-value and"))
	_, err = s.Get(context.Background(), "u", "nope")
	require.ErrorIs(t, err, ErrNotFound)
}

// TestRedactConcurrent: fetching while the log redacts is safe (go test -race).
func TestRedactConcurrent(t *testing.T) {
	t.Parallel()
	src := fetched{}
	for i := range 50 {
		src[string(rune('a'+i%26))+string(rune('A'+i/26))] = "value-" + string(rune('a'+i%26)) + string(rune('A'+i/26))
	}
	s := New(map[string]Source{"u": src}, []string{"u"}, "u")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := range src {
			_, _ = s.Get(context.Background(), "", k)
		}
	}()
	for range 200 {
		_ = s.Redact("value-aA value-bB")
	}
	<-done
	require.Equal(t, "***SECRET_REDACTED*** ***SECRET_REDACTED***", s.Redact("value-aA value-bB"))
}
