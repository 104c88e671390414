package webcrypto_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// ECDSA keys and signatures cross Go's standard library both ways: Go's PKCS #8 and
// SPKI import, Go's signatures verify, and what the script generates, exports and
// signs Go parses and verifies.
func TestECDSAWithGo(t *testing.T) {
	priv, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	require.NoError(t, err)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	spki, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	require.NoError(t, err)
	msg := []byte("tidemark")
	sum := sha512.Sum384(msg)
	r, s, err := ecdsa.Sign(rand.Reader, priv, sum[:])
	require.NoError(t, err)
	goSig := append(r.FillBytes(make([]byte, 48)), s.FillBytes(make([]byte, 48))...)
	l := run(t, fmt.Sprintf(`
const alg = { name: "ECDSA", namedCurve: "P-384" };
const sigAlg = { name: "ECDSA", hash: "SHA-384" };
export default async function () {
  const priv = await crypto.subtle.importKey("pkcs8", unhex("%x"), alg, true, ["sign"]);
  const pub = await crypto.subtle.importKey("spki", unhex("%x"), alg, true, ["verify"]);
  check(priv, { "private key": (k) => k.type === "private" && k.algorithm.namedCurve === "P-384" && k.usages.join() === "sign" });
  check(await crypto.subtle.verify(sigAlg, pub, unhex("%x"), utf8("tidemark")), { "Go's signature verifies": (v) => v });
  check(await crypto.subtle.verify(sigAlg, pub, unhex("%x"), utf8("tidemarK")), { "not for other data": (v) => !v });
  const mine = await crypto.subtle.sign(sigAlg, priv, utf8("tidemark"));
  check(mine.byteLength, { "r||s, 48 bytes each": (n) => n === 96 });
  console.log("sig " + hex(mine));
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-521" }, true, ["sign", "verify"]);
  check(pair, { "pair": (p) => p.publicKey.type === "public" && p.publicKey.usages.join() === "verify" &&
    p.privateKey.usages.join() === "sign" && p.publicKey.extractable });
  console.log("spki " + hex(await crypto.subtle.exportKey("spki", pair.publicKey)));
  console.log("pkcs8 " + hex(await crypto.subtle.exportKey("pkcs8", pair.privateKey)));
  console.log("raw " + hex(await crypto.subtle.exportKey("raw", pair.publicKey)));
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  console.log("jwk.x " + jwk.x);
  check(jwk, { "EC jwk": (j) => j.kty === "EC" && j.crv === "P-521" && j.d.length === 88 && j.key_ops.join() === "sign" });
  const again = await crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-521" }, true, ["sign"]);
  const pubJwk = await crypto.subtle.importKey("jwk", { kty: "EC", crv: "P-521", x: jwk.x, y: jwk.y }, { name: "ECDSA", namedCurve: "P-521" }, true, ["verify"]);
  const s2 = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-512" }, again, utf8("x"));
  console.log("sig521 " + hex(s2));
  check(await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-512" }, pubJwk, s2, utf8("x")), { "jwk round trip verifies": (v) => v });
  check(await rejects(crypto.subtle.importKey("jwk", jwk, { name: "ECDSA", namedCurve: "P-256" }, true, ["sign"])), { "crv mismatch: DataError": (n) => n === "DataError" });
  check(await rejects(crypto.subtle.exportKey("raw", pair.privateKey)), { "raw private: InvalidAccessError": (n) => n === "InvalidAccessError" });
  check(await rejects(crypto.subtle.exportKey("spki", pair.privateKey)), { "spki private: InvalidAccessError": (n) => n === "InvalidAccessError" });
  check(await rejects(crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-192" }, true, ["sign"])), { "P-192: NotSupportedError": (n) => n === "NotSupportedError" });
  check(await rejects(crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["verify"])), { "no private usage: SyntaxError": (n) => n === "SyntaxError" });
  check(await rejects(crypto.subtle.sign(sigAlg, pub, utf8("x"))), { "sign with a public key: InvalidAccessError": (n) => n === "InvalidAccessError" });
  check(await rejects(crypto.subtle.importKey("spki", new Uint8Array(10), alg, true, ["verify"])), { "garbage spki: DataError": (n) => n === "DataError" });
}`, pkcs8, spki, goSig, goSig))

	sig := l.bytesAfter(t, "sig ")
	require.True(t, ecdsa.Verify(&priv.PublicKey, sum[:], new(big.Int).SetBytes(sig[:48]), new(big.Int).SetBytes(sig[48:])),
		"Go verifies the script's signature")
	pubAny, err := x509.ParsePKIXPublicKey(l.bytesAfter(t, "spki "))
	require.NoError(t, err, "Go reads the exported SPKI")
	pub := pubAny.(*ecdsa.PublicKey)
	privAny, err := x509.ParsePKCS8PrivateKey(l.bytesAfter(t, "pkcs8 "))
	require.NoError(t, err, "Go reads the exported PKCS #8")
	require.True(t, privAny.(*ecdsa.PrivateKey).PublicKey.Equal(pub), "PKCS #8 and SPKI are one pair")
	raw, err := pub.Bytes()
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(raw), l.value(t, "raw "), "raw is the uncompressed point")
	require.Equal(t, base64.RawURLEncoding.EncodeToString(raw[1:67]), l.value(t, "jwk.x "), "jwk.x is the 66-byte X")
	s521 := l.bytesAfter(t, "sig521 ")
	h := sha512.Sum512([]byte("x"))
	require.True(t, ecdsa.Verify(pub, h[:], new(big.Int).SetBytes(s521[:66]), new(big.Int).SetBytes(s521[66:])))
}

// ECDH gives Go's shared secret; derived bits are its prefix.
func TestECDHWithGo(t *testing.T) {
	alice, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	bob, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	aPKCS8, err := x509.MarshalPKCS8PrivateKey(alice)
	require.NoError(t, err)
	bRaw, err := bob.PublicKey.Bytes()
	require.NoError(t, err)
	a, _ := alice.ECDH()
	b, _ := bob.PublicKey.ECDH()
	secret, err := a.ECDH(b)
	require.NoError(t, err)
	l := run(t, fmt.Sprintf(`
const alg = { name: "ECDH", namedCurve: "P-256" };
export default async function () {
  const priv = await crypto.subtle.importKey("pkcs8", unhex("%x"), alg, true, ["deriveBits"]);
  const pub = await crypto.subtle.importKey("raw", unhex("%x"), alg, true, []);
  check(pub.usages.length, { "public ECDH key has no usages": (n) => n === 0 });
  console.log("secret " + hex(await crypto.subtle.deriveBits({ name: "ECDH", public: pub }, priv, 256)));
  console.log("prefix " + hex(await crypto.subtle.deriveBits({ name: "ECDH", publicKey: pub }, priv, 128)));
  check(await rejects(crypto.subtle.deriveBits({ name: "ECDH", public: pub }, priv, 264)), { "more than the curve gives: OperationError": (n) => n === "OperationError" });
  check(await rejects(crypto.subtle.deriveBits({ name: "ECDH", public: pub }, priv, 12)), { "not a multiple of 8: OperationError": (n) => n === "OperationError" });
  check(await rejects(crypto.subtle.importKey("raw", unhex("%x"), alg, true, ["deriveBits"])), { "usages on a public ECDH key: SyntaxError": (n) => n === "SyntaxError" });
  const other = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-384" }, true, ["deriveBits"]);
  check(await rejects(crypto.subtle.deriveBits({ name: "ECDH", public: other.publicKey }, priv, 256)), { "curves differ: InvalidAccessError": (n) => n === "InvalidAccessError" });
  check(await rejects(crypto.subtle.deriveKey({ name: "ECDH", public: pub }, priv, { name: "AES-GCM", length: 256 }, true, ["encrypt"])), {
    "deriveKey with ECDH: NotSupportedError, as k6 documents": (n) => n === "NotSupportedError" });
}`, aPKCS8, bRaw, bRaw))
	require.Equal(t, hex.EncodeToString(secret), l.value(t, "secret "))
	require.Equal(t, hex.EncodeToString(secret[:16]), l.value(t, "prefix "))
}
