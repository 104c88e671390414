package secrets_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
	"github.com/tidemark/tidemark/internal/k6log"
	"github.com/tidemark/tidemark/internal/secretsource"
)

// redactingLogger is the run's log as `tidemark run` builds it: k6's format, with the
// secret sources' values redacted.
func redactingLogger(set *secretsource.Set) (*slog.Logger, *modulestest.LogBuffer) {
	buf := &modulestest.LogBuffer{}
	return slog.New(k6log.New(k6log.Config{Writer: buf, Redact: set.Redact})), buf
}

const script = `
import secrets from 'k6/secrets';
import { get, source } from 'k6/secrets';
import { check } from 'k6';

export default async function () {
  const a = await secrets.get('cool');
  const b = await secrets.source('another').get('cool');
  const f = await source('file').get('token');
  console.log('default ' + a + ' other ' + b + ' file ' + f);
  let missing = '';
  try { await get('nope'); } catch (e) { missing = String(e); }
  let unknown = '';
  try { await secrets.source('x').get('cool'); } catch (e) { unknown = String(e); }
  let noKey = '';
  try { secrets.get(); } catch (e) { noKey = String(e); }
  let noName = '';
  try { secrets.source(); } catch (e) { noName = String(e); }
  check(null, {
    'default source': () => a === 'cool secret',
    'named source': () => b === 'not cool secret',
    'file source': () => f === 'f1le-t0ken',
    'a promise': () => secrets.get('cool') instanceof Promise,
    'not found names source and key': () => missing.includes('get secret "nope" from source "mock": not found'),
    'unknown source': () => unknown.includes('no secret source named "x"; the sources are mock, another, file'),
    'no key': () => noKey.includes('TypeError: secrets.get: expected the key of a secret'),
    'no name': () => noName.includes('TypeError: secrets.source: expected the name of a secret source'),
  });
  throw new Error('leaked ' + b);
}
`

// TestSecrets: get and source(name).get read the default and named sources of
// --secret-source; the values reach the script whole and the log redacted (console
// and exceptions); a missing secret names its source and key.
func TestSecrets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file.secret")
	require.NoError(t, os.WriteFile(file, []byte("token=f1le-t0ken\n"), 0o600))
	set, err := secretsource.Parse([]string{"mock=default,cool=cool secret", "mock=name=another,cool=not cool secret", "file=name=file,filename=" + file})
	require.NoError(t, err)
	logger, log := redactingLogger(set)
	h := modulestest.Start(t, map[string]string{"script.js": script}, modulestest.WithSecrets(set), modulestest.WithLogger(logger))
	vu := h.VUs(t, 1)[0]
	require.False(t, vu.Iterate(context.Background()), "the iteration ends with its exception")
	require.Equal(t, map[string]bool{
		"default source": true, "named source": true, "file source": true, "a promise": true,
		"not found names source and key": true, "unknown source": true, "no key": true, "no name": true,
	}, h.Checks(), log.String())
	out := log.String()
	require.Contains(t, out, `msg="default ***SECRET_REDACTED*** other ***SECRET_REDACTED*** file ***SECRET_REDACTED***" source=console`)
	require.Contains(t, out, "leaked ***SECRET_REDACTED***")
	for _, v := range []string{"cool secret", "f1le-t0ken"} {
		require.NotContains(t, out, v)
	}
}

// TestSecretsWithoutSources: without --secret-source every get rejects saying so;
// with several sources and no default, get() asks for one.
func TestSecretsWithoutSources(t *testing.T) {
	t.Parallel()
	const s = `
import secrets from 'k6/secrets';
import { check } from 'k6';
export default async function () {
  let err = '';
  try { await secrets.get('k'); } catch (e) { err = String(e); }
  check(err, { rejected: (e) => e.includes(WANT) });
}
`
	for _, tc := range []struct {
		specs []string
		want  string
	}{
		{nil, `get secret "k": no secret source is configured; use --secret-source`},
		{[]string{"mock=name=a,k=1", "mock=name=b,k=2"}, `get secret "k": no default secret source among a, b`},
	} {
		set, err := secretsource.Parse(tc.specs)
		require.NoError(t, err)
		h := modulestest.Start(t, map[string]string{"script.js": "const WANT = " + strconv.Quote(tc.want) + ";\n" + s}, modulestest.WithSecrets(set))
		h.Iterate(t)
		require.Equal(t, map[string]bool{"rejected": true}, h.Checks())
	}
}
