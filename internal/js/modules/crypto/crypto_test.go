package crypto_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// TestCorpusCrypto runs the corpus script crypto.js as `tidemark run` does: every check
// passes (exit 0).
func TestCorpusCrypto(t *testing.T) {
	t.Parallel()
	out := modulestest.RunTest(t, "../../testdata/corpus/crypto.js", nil)
	require.NoError(t, out.Err)
	require.Equal(t, 0, out.ExitCode)
	require.Regexp(t, `checks_succeeded\.+: 100\.00% 16 out of 16`, out.Summary)
}

// TestCrypto covers the algorithms and encodings the corpus does not use, against the
// digests of `openssl dgst` and Go's crypto packages, and the errors.
func TestCrypto(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check } from 'k6';
import crypto from 'k6/crypto';

function throws(f, want) {
  try { f(); } catch (e) { return String(e).includes(want); }
  return false;
}

export default function () {
  check(null, {
    'md4': () => crypto.md4('hello', 'hex') === '866437cb7a794bce2b727acc0362ee27',
    'sha384': () => crypto.sha384('hello', 'hex') === '59e1748777448c69de6b800d7a33bbfb9ff1b463e44354c3553bcdb9c666fa90125a3c79f90397bdf5f6a13de828684f',
    'sha512_224': () => crypto.sha512_224('hello', 'hex') === 'fe8509ed1fb7dcefc27e6ac1a80eddbec4cb3d2c6fe565244374061c',
    'sha512_256': () => crypto.sha512_256('hello', 'hex') === 'e30d87cfa2a75db545eac4d61baf970366a8357c7f72fa95b52d0accb698f13a',
    'ripemd160': () => crypto.ripemd160('hello', 'hex') === '108f07b8382412612c048d07d13f814118445acd',
    'base64url': () => crypto.sha256('hello', 'base64url') === 'LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=',
    'base64rawurl': () => crypto.sha256('hello', 'base64rawurl') === 'LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ',
    'binary is an ArrayBuffer of the digest': () => {
      const b = crypto.md5('hello', 'binary');
      const u = new Uint8Array(b);
      return b instanceof ArrayBuffer && u.length === 16 && u[0] === 0x5d && u[15] === 0x92;
    },
    'digest twice gives the same': () => {
      const h = crypto.createHash('md5');
      h.update('hello');
      return h.digest('hex') === h.digest('hex');
    },
    'hmac with an ArrayBuffer secret': () =>
      crypto.hmac('sha256', new Uint8Array([115, 101, 99, 114, 101, 116]).buffer, 'hello', 'hex') ===
      '88aab3ede8d3adf94d26ab90d3bafd4a2083070c3bcce9c014ee04a443847c0b',
    'randomBytes differ': () => crypto.sha256(crypto.randomBytes(32), 'hex') !== crypto.sha256(crypto.randomBytes(32), 'hex'),
    'randomBytes(0) is empty': () => crypto.randomBytes(0).byteLength === 0,
    'unknown algorithm throws': () => throws(() => crypto.createHash('sha3'), 'unknown hash algorithm "sha3"'),
    'unknown hmac algorithm throws': () => throws(() => crypto.hmac('md2', 'k', 'd', 'hex'), 'unknown hash algorithm "md2"'),
    'unknown encoding throws': () => throws(() => crypto.md5('x', 'base32'), 'unknown output encoding "base32"'),
    'negative size throws': () => throws(() => crypto.randomBytes(-1), 'randomBytes: expected a size'),
  });
}
`})
	h.Iterate(t)
	checks := h.Checks()
	require.Len(t, checks, 16)
	for name, ok := range checks {
		require.True(t, ok, name)
	}
}
