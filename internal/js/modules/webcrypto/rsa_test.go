package webcrypto_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// RSA keys, signatures and ciphertexts cross Go's standard library both ways.
func TestRSAWithGo(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	spki, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	require.NoError(t, err)
	msg := []byte("tidemark")
	sum := sha256.Sum256(msg)
	pkcs1Sig, err := rsa.SignPKCS1v15(nil, priv, crypto.SHA256, sum[:])
	require.NoError(t, err)
	pssSig, err := rsa.SignPSS(rand.Reader, priv, crypto.SHA256, sum[:], &rsa.PSSOptions{SaltLength: 32})
	require.NoError(t, err)
	oaep, err := rsa.EncryptOAEP(sha256.New(), rand.Reader, &priv.PublicKey, msg, []byte("label"))
	require.NoError(t, err)
	l := run(t, fmt.Sprintf(`
const PKCS8 = unhex("%x"), SPKI = unhex("%x");
export default async function () {
  const rs = { name: "RSASSA-PKCS1-v1_5", hash: { name: "SHA-256" } };
  const sk = await crypto.subtle.importKey("pkcs8", PKCS8, rs, true, ["sign"]);
  check(sk.algorithm, { "RSA algorithm": (a) => a.modulusLength === 2048 && a.hash.name === "SHA-256" && [...a.publicExponent].join() === "1,0,1" });
  check(hex(await crypto.subtle.sign("RSASSA-PKCS1-v1_5", sk, utf8("tidemark"))), { "PKCS #1 v1.5 signature is Go's": (h) => h === "%x" });
  const pss = { name: "RSA-PSS", hash: "SHA-256" };
  const pk = await crypto.subtle.importKey("spki", SPKI, pss, true, ["verify"]);
  check(await crypto.subtle.verify({ name: "RSA-PSS", saltLength: 32 }, pk, unhex("%x"), utf8("tidemark")), { "Go's PSS signature verifies": (v) => v });
  check(await crypto.subtle.verify({ name: "RSA-PSS", saltLength: 20 }, pk, unhex("%x"), utf8("tidemark")), { "not with another salt length": (v) => !v });
  const pssPriv = await crypto.subtle.importKey("pkcs8", PKCS8, pss, false, ["sign"]);
  console.log("pss " + hex(await crypto.subtle.sign({ name: "RSA-PSS", saltLength: 32 }, pssPriv, utf8("tidemark"))));
  check(await rejects(crypto.subtle.sign({ name: "RSA-PSS", saltLength: 0 }, pssPriv, utf8("x"))), { "saltLength 0: NotSupportedError": (n) => n === "NotSupportedError" });
  const oa = { name: "RSA-OAEP", hash: "SHA-256" };
  const dk = await crypto.subtle.importKey("pkcs8", PKCS8, oa, true, ["decrypt"]);
  const plain = await crypto.subtle.decrypt({ name: "RSA-OAEP", label: utf8("label") }, dk, unhex("%x"));
  check(hex(plain), { "Go's OAEP ciphertext decrypts": (h) => h === hex(utf8("tidemark")) });
  check(await rejects(crypto.subtle.decrypt({ name: "RSA-OAEP" }, dk, unhex("%x"))), { "wrong label: OperationError": (n) => n === "OperationError" });
  const ek = await crypto.subtle.importKey("spki", SPKI, oa, true, ["encrypt"]);
  console.log("oaep " + hex(await crypto.subtle.encrypt({ name: "RSA-OAEP" }, ek, utf8("hello"))));
  const jwk = await crypto.subtle.exportKey("jwk", dk);
  console.log("jwk.n " + jwk.n);
  console.log("jwk.d " + jwk.d);
  check(jwk, { "RSA jwk": (j) => j.kty === "RSA" && j.alg === "RSA-OAEP-256" && j.e === "AQAB" && j.qi && j.dp && j.dq && j.key_ops.join() === "decrypt" });
  const back = await crypto.subtle.importKey("jwk", jwk, oa, true, ["decrypt"]);
  check(hex(await crypto.subtle.decrypt({ name: "RSA-OAEP", label: utf8("label") }, back, unhex("%x"))), { "jwk round trip decrypts": (h) => h === hex(utf8("tidemark")) });
  const pubJwk = await crypto.subtle.exportKey("jwk", ek);
  check(pubJwk, { "public jwk has no d": (j) => j.d === undefined && j.n === jwk.n && j.key_ops.join() === "encrypt" });
  check(await rejects(crypto.subtle.importKey("jwk", jwk, { name: "RSA-OAEP", hash: "SHA-1" }, true, ["decrypt"])), { "alg mismatch: DataError": (n) => n === "DataError" });
  check(await rejects(crypto.subtle.importKey("raw", SPKI, oa, true, ["encrypt"])), { "raw RSA: NotSupportedError": (n) => n === "NotSupportedError" });
  check(await rejects(crypto.subtle.generateKey({ name: "RSA-PSS", modulusLength: 1024, publicExponent: new Uint8Array([3]), hash: "SHA-256" }, true, ["sign"])), {
    "exponent 3: OperationError": (n) => n === "OperationError" });
  const gen = await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-512" }, true, ["sign", "verify"]);
  check(gen, { "generated pair": (p) => p.privateKey.algorithm.modulusLength === 1024 && p.publicKey.usages.join() === "verify" });
  const sig = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", gen.privateKey, utf8("x"));
  check(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", gen.publicKey, sig, utf8("x")), { "generated pair signs and verifies": (v) => v });
  console.log("genspki " + hex(await crypto.subtle.exportKey("spki", gen.publicKey)));
}`, pkcs8, spki, pkcs1Sig, pssSig, pssSig, oaep, oaep, oaep))

	require.NoError(t, rsa.VerifyPSS(&priv.PublicKey, crypto.SHA256, sum[:], l.bytesAfter(t, "pss "), &rsa.PSSOptions{SaltLength: 32}))
	plain, err := rsa.DecryptOAEP(sha256.New(), nil, priv, l.bytesAfter(t, "oaep "), nil)
	require.NoError(t, err)
	require.Equal(t, "hello", string(plain))
	require.Equal(t, base64.RawURLEncoding.EncodeToString(priv.N.Bytes()), l.value(t, "jwk.n "))
	require.Equal(t, base64.RawURLEncoding.EncodeToString(priv.D.Bytes()), l.value(t, "jwk.d "))
	gen, err := x509.ParsePKIXPublicKey(l.bytesAfter(t, "genspki "))
	require.NoError(t, err)
	require.Equal(t, 1024, gen.(*rsa.PublicKey).N.BitLen())
}

// RFC 6070's PBKDF2-HMAC-SHA1 vectors, deriveKey into AES keys, and k6's PBKDF2
// import constraints.
func TestPBKDF2(t *testing.T) {
	run(t, `
export default async function () {
  const pw = await crypto.subtle.importKey("raw", utf8("password"), "PBKDF2", false, ["deriveBits", "deriveKey"]);
  check(pw, { "PBKDF2 key": (k) => k.type === "secret" && !k.extractable && k.algorithm.name === "PBKDF2" });
  const bits = (c, n) => crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-1", salt: utf8("salt"), iterations: c }, pw, n);
  check(hex(await bits(1, 160)), { "RFC 6070, c=1": (h) => h === "0c60c80f961f0e71f3a9b524af6012062fe037a6" });
  check(hex(await bits(4096, 160)), { "RFC 6070, c=4096": (h) => h === "4b007901b765489abead49d926f721d065a429c1" });
  const params = { name: "PBKDF2", hash: "SHA-256", salt: utf8("salt"), iterations: 1000 };
  const key = await crypto.subtle.deriveKey(params, pw, { name: "AES-GCM", length: 256 }, true, ["encrypt", "decrypt"]);
  check(key, { "derived AES-GCM key": (k) => k.type === "secret" && k.algorithm.name === "AES-GCM" && k.algorithm.length === 256 && k.usages.join() === "encrypt,decrypt" });
  const raw = await crypto.subtle.exportKey("raw", key);
  check(hex(raw) === hex(await crypto.subtle.deriveBits(params, pw, 256)), { "the derived key is the derived bits": (v) => v });
  const kw = await crypto.subtle.deriveKey(params, pw, { name: "AES-KW", length: 128 }, true, ["wrapKey", "unwrapKey"]);
  check(kw.algorithm, { "derived AES-KW key": (a) => a.name === "AES-KW" && a.length === 128 });
  check((await crypto.subtle.exportKey("jwk", kw)).alg, { "AES-KW jwk alg": (a) => a === "A128KW" });
  check(await rejects(crypto.subtle.deriveKey(params, pw, { name: "HMAC", hash: "SHA-256", length: 256 }, true, ["sign"])), { "HMAC derived key: NotSupportedError": (n) => n === "NotSupportedError" });
  check(await rejects(crypto.subtle.deriveBits({ ...params, iterations: 0 }, pw, 256)), { "0 iterations: OperationError": (n) => n === "OperationError" });
  check(await rejects(crypto.subtle.deriveBits(params, pw, 0)), { "length 0: OperationError": (n) => n === "OperationError" });
  check(await rejects(crypto.subtle.importKey("raw", utf8("pw"), "PBKDF2", true, ["deriveBits"])), { "extractable: SyntaxError": (n) => n === "SyntaxError" });
  check(await rejects(crypto.subtle.importKey("raw", utf8("pw"), "PBKDF2", false, ["sign"])), { "sign usage: SyntaxError": (n) => n === "SyntaxError" });
  check(await rejects(crypto.subtle.importKey("jwk", { kty: "oct", k: "cHc" }, "PBKDF2", false, ["deriveBits"])), { "jwk: NotSupportedError": (n) => n === "NotSupportedError" });
  check(await rejects(crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: utf8("s"), info: utf8("i") }, pw, 256)), { "HKDF: NotSupportedError, as k6 documents": (n) => n === "NotSupportedError" });
}`)
}

// The private JWK's CRT members are the key's own (RFC 7518 §6.3.2), so Go
// rebuilds the same key from them.
func TestRSAJWKCRT(t *testing.T) {
	priv, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	l := run(t, fmt.Sprintf(`
export default async function () {
  const k = await crypto.subtle.importKey("pkcs8", unhex("%x"), { name: "RSA-PSS", hash: "SHA-384" }, true, ["sign"]);
  const j = await crypto.subtle.exportKey("jwk", k);
  check(j.alg, { "PS384": (a) => a === "PS384" });
  for (const m of ["dp", "dq", "qi"]) console.log(m + " " + j[m]);
}`, pkcs8))
	enc := base64.RawURLEncoding.EncodeToString
	require.Equal(t, enc(priv.Precomputed.Dp.Bytes()), l.value(t, "dp "))
	require.Equal(t, enc(priv.Precomputed.Dq.Bytes()), l.value(t, "dq "))
	require.Equal(t, enc(priv.Precomputed.Qinv.Bytes()), l.value(t, "qi "))
}
