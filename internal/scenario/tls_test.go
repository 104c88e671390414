package scenario

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeyPairWrongPasswordThatPassesPadding: RFC 1423 encryption has no integrity
// check, so about one wrong password in 256 decrypts without an error into bytes that
// are no key. Such a password is still named as the problem, not the key's format.
func TestKeyPairWrongPasswordThatPassesPadding(t *testing.T) {
	t.Parallel()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalECPrivateKey(k)
	require.NoError(t, err)
	//nolint:staticcheck // RFC 1423 keys are what tlsAuth's password decrypts
	block, err := x509.EncryptPEMBlock(rand.Reader, "EC PRIVATE KEY", der, []byte("s3cret"), x509.PEMCipherAES256)
	require.NoError(t, err)
	key := pem.EncodeToMemory(block)
	wrong := ""
	for i := range 10000 {
		p := fmt.Sprintf("wrong-%d", i)
		if _, err := x509.DecryptPEMBlock(block, []byte(p)); err == nil { //nolint:staticcheck // as above
			wrong = p
			break
		}
	}
	require.NotEmpty(t, wrong, "one of 10,000 wrong passwords passes the padding check")
	_, err = keyPair(nil, key, wrong)
	require.ErrorContains(t, err, "key: decrypt with the password: the decrypted key does not parse (a wrong password?)")
	_, err = keyPair(nil, key, "s3cret")
	require.ErrorContains(t, err, "cert and key:", "the right password decrypts the key; the missing certificate is what fails")
}
