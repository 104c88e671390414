package encoding_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// TestCorpusEncoding runs the corpus script encoding.js as `tidemark run` does: every
// check passes, so its threshold checks rate==1 passes (exit 0).
func TestCorpusEncoding(t *testing.T) {
	t.Parallel()
	out := modulestest.RunTest(t, "../../testdata/corpus/encoding.js", nil)
	require.NoError(t, out.Err)
	require.Equal(t, 0, out.ExitCode)
	require.Regexp(t, `checks_succeeded\.+: 100\.00% 15 out of 15`, out.Summary)
}

// TestEncoding covers what the corpus does not: errors and typed-array input.
func TestEncoding(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check } from 'k6';
import { b64encode, b64decode } from 'k6/encoding';

function throws(f, want) {
  try { f(); } catch (e) { return String(e).includes(want); }
  return false;
}

export default function () {
  check(null, {
    'typed array input': () => b64encode(new Uint8Array([0xfb, 0xff])) === '+/8=',
    'empty string': () => b64encode('') === '' && b64decode('', 'std', 's') === '',
    'unknown encoding throws': () => throws(() => b64encode('x', 'base32'), 'unknown base64 encoding "base32"'),
    'bad input throws': () => throws(() => b64decode('!!!'), 'illegal base64 data'),
    'unknown format throws': () => throws(() => b64decode('aGk=', 'std', 'x'), 'unknown output format "x"'),
    'no input throws': () => throws(() => b64encode(), 'expected a string or an ArrayBuffer'),
  });
}
`})
	h.Iterate(t)
	checks := h.Checks()
	require.Len(t, checks, 6)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
}
