package webcrypto_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// examples is k6's examples/webcrypto, copied into the real-world corpus.
const examples = "../../testdata/realworld/k6/examples/webcrypto"

// keyJSON is a CryptoKey as JSON.stringify shows it.
const keyJSON = `\{"type":"(secret|public|private)","extractable":(true|false),"algorithm":\{"name":"[A-Za-z0-9_-]+"(,"[a-zA-Z]+":(\d+|"[^"]*"|\{[^}]*\}))*\},"usages":\[[a-zA-Z",]*\]\}`

// bytesList is a list of byte values as the examples print them.
func bytesList(n int) string {
	return `(\d{1,3},){` + itoa(n-1) + `}\d{1,3}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// exampleLines is what each example logs (a regular expression per line that must
// appear), as k6 documents the example's output.
func exampleLines() map[string][]string {
	pair := `\{"publicKey":` + keyJSON + `,"privateKey":` + keyJSON + `\}`
	return map[string][]string{
		"derive_bits/derive-bits-ecdh.js":                   {`^alice shared secret: ` + bytesList(32) + `$`, `^bob shared secret: ` + bytesList(32) + `$`},
		"derive_bits/derive-bits-pbkdf2.js":                 {`^Derived Bits:  \[` + bytesList(32) + `\]$`},
		"derive_key/derive-key-pbkdf2.js":                   {`^\{"type":"secret","extractable":true,"algorithm":\{"name":"AES-GCM","length":256\},"usages":\["encrypt","decrypt"\]\}$`},
		"digest.js":                                         {`^315f5bdb76d078c43b8ac0064e4a0164612b1fce77c869345bfc94c75894edd3$`},
		"encrypt_decrypt/encrypt-decrypt-aes-cbc.js":        {`^deciphered text == original text:  true$`},
		"encrypt_decrypt/encrypt-decrypt-aes-ctr.js":        {`^deciphered text == original text:  true$`},
		"encrypt_decrypt/encrypt-decrypt-aes-gcm.js":        {`^deciphered text == original text:  true$`},
		"encrypt_decrypt/encrypt-decrypt-rsa.js":            {`^cipherText's byteLength:  2048$`, `^algorithm's modulusLength:  2048$`, `^deciphered text == original text:  true$`},
		"generateKey/generateKey-RSA-PSS.js":                {`^` + pair + `$`, `"name":"RSA-PSS","modulusLength":2048,"publicExponent":\{"0":1,"1":0,"2":1\},"hash":\{"name":"SHA-1"\}`},
		"generateKey/generateKey-RSASSA-PKCS1-v1_5.js":      {`^` + pair + `$`, `"modulusLength":1024`},
		"generateKey/generateKey-aes.js":                    {`^\{"type":"secret","extractable":true,"algorithm":\{"name":"AES-CBC","length":256\},"usages":\["encrypt","decrypt"\]\}$`},
		"generateKey/generateKey-ecdh.js":                   {`^` + pair + `$`, `"usages":\[\]\},"privateKey".*"usages":\["deriveKey","deriveBits"\]`},
		"generateKey/generateKey-ecdsa.js":                  {`^` + pair + `$`, `"namedCurve":"P-256"`},
		"generateKey/generateKey-hmac.js":                   {`^\{"type":"secret","extractable":true,"algorithm":\{"name":"HMAC","hash":\{"name":"SHA-512"\},"length":256\},"usages":\["sign","verify"\]\}$`},
		"getRandomValues.js":                                {`^\d+$`},
		"import_export/export-ecdh-keys.js":                 {`^exported private key: ` + bytesList(138) + `$`, `^exported public key: 4,` + bytesList(64) + `$`},
		"import_export/export-ecdsa-keys.js":                {`^exported private key: ` + bytesList(138) + `$`, `^exported public key: 4,` + bytesList(64) + `$`},
		"import_export/export-rsa-spki.js":                  {`^exported private key: 48,`, `^exported public key: ` + bytesList(162) + `$`},
		"import_export/import-ecdh-key.js":                  {`^alice:  ` + pair + `$`, `^bob:  ` + pair + `$`, `^alice shared secret: ` + bytesList(32) + `$`},
		"import_export/import-ecdsa-keys.js":                {`^alice:  ` + pair + `$`},
		"import_export/import-export-aes-key.js":            {`^\{"type":"secret","extractable":true,"algorithm":\{"name":"AES-CBC","length":256\},"usages":\["encrypt","decrypt"\]\}$`},
		"import_export/import-export-hmac-key.js":           {`^\{"type":"secret","extractable":true,"algorithm":\{"name":"HMAC","hash":\{"name":"SHA-256"\},"length":512\},"usages":\["sign","verify"\]\}$`},
		"import_export/import-export-jwk-aes-key.js":        {`^exported: \{"alg":"A256CBC","ext":true,"k":"[A-Za-z0-9_-]{43}","key_ops":\["encrypt","decrypt"\],"kty":"oct"\}$`, `^imported: ` + keyJSON + `$`, `^exported again: \{"alg":"A256CBC"`},
		"import_export/import-export-jwk-aes-static-key.js": {`^exported again: \{"alg":"A256CBC","ext":true,"k":"LhR2VJFb1NJ8HORgOn7LNKLXhUqPsTjC65UAWFb4GKI","key_ops":\["encrypt","decrypt"\],"kty":"oct"\}$`},
		// The static key is a P-521 key imported as P-256: the specification's DataError
		// (the iteration fails with it), so nothing is imported.
		"import_export/import-export-jwk-ecdsa.js":           {`^static key: `, `DataError: importKey: jwk.crv is "P-521", the algorithm's namedCurve "P-256"`},
		"import_export/import-export-jwk-hmac-key.js":        {`^exported: \{"alg":"HS256","ext":true,"k":"[A-Za-z0-9_-]{86}","key_ops":\["sign","verify"\],"kty":"oct"\}$`, `^exported again: \{"alg":"HS256"`},
		"import_export/import-export-jwk-hmac-static-key.js": {`^exported again: \{"alg":"HS256","ext":true,"k":"H6gLp3lw7w27NrPUn00WpcKU-IJojJdNzhL_8F6se2k","key_ops":\["sign","verify"\],"kty":"oct"\}$`},
		"import_export/import-jwk-base64-decrypt.js":         {`^result: 'my secret message'$`},
		"import_export/import-raw-base64-decrypt.js":         {`^result: 'my secret message'$`},
		"randomUUID.js":                            {`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`},
		"sign_verify/sign-verify-ecdsa.js":         {`^signature:  \[` + bytesList(64) + `\]$`, `^verified:  true$`},
		"sign_verify/sign-verify-hmac.js":          {`^verified:  true$`},
		"sign_verify/verify-spki-ecdsa-invalid.js": {`^verified:  false$`},
		"sign_verify/verify-spki-ecdsa-valid.js":   {`^verified:  true$`},
		"sign_verify/verify-spki-rsa-valid.js":     {`^private key type: private$`, `^public key type: public$`, `^verified:  true$`},
	}
}

// Every script of k6's examples/webcrypto runs one iteration and logs what k6's
// documentation and the example's comments say it logs.
func TestK6Examples(t *testing.T) {
	want := exampleLines()
	var seen []string
	require.NoError(t, filepath.WalkDir(examples, func(p string, _ os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".js") {
			rel, _ := filepath.Rel(examples, p)
			seen = append(seen, filepath.ToSlash(rel))
		}
		return err
	}))
	require.Len(t, seen, len(want), "every example has its expected lines")
	for _, name := range seen {
		t.Run(name, func(t *testing.T) {
			lines, ok := want[name]
			require.True(t, ok, "no expected lines for %s", name)
			src, err := os.ReadFile(filepath.Join(examples, filepath.FromSlash(name)))
			require.NoError(t, err)
			l := &logs{}
			h := modulestest.Start(t, map[string]string{"script.js": string(src)}, modulestest.WithLogger(slog.New(l)))
			completed := h.VUs(t, 1)[0].Iterate(context.Background())
			require.NoError(t, h.Runner.Err())
			if !strings.Contains(name, "jwk-ecdsa") {
				require.True(t, completed, "the iteration did not complete: %q", l.all())
			}
			for _, re := range lines {
				rx := regexp.MustCompile(re)
				found := false
				for _, m := range l.all() {
					found = found || rx.MatchString(m)
				}
				require.True(t, found, "no line matches %s in %q", re, l.all())
			}
		})
	}
}
