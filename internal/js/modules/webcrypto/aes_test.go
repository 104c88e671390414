package webcrypto_test

import (
	"crypto/aes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

// NIST SP 800-38A (CBC, CTR) and the GCM specification's test cases 2 and 4.
func TestAESVectors(t *testing.T) {
	run(t, `
const K = unhex("2b7e151628aed2a6abf7158809cf4f3c");
const P = unhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51");
export default async function () {
  const cbc = await crypto.subtle.importKey("raw", K, "AES-CBC", true, ["encrypt", "decrypt"]);
  check(cbc.algorithm, { "AES-CBC key": (a) => a.name === "AES-CBC" && a.length === 128 });
  const iv = unhex("000102030405060708090a0b0c0d0e0f");
  const c = await crypto.subtle.encrypt({ name: "AES-CBC", iv }, cbc, P);
  check(hex(c), { "SP 800-38A F.2.1 plus a padding block": (h) => h.length === 96 &&
    h.startsWith("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2") });
  check(hex(await crypto.subtle.decrypt({ name: "AES-CBC", iv }, cbc, c)), { "CBC decrypts": (h) => h === hex(P) });
  check(await rejects(crypto.subtle.decrypt({ name: "AES-CBC", iv }, cbc, new Uint8Array(c).slice(0, 40))), {
    "CBC, not whole blocks: OperationError": (n) => n === "OperationError" });
  check(await rejects(crypto.subtle.encrypt({ name: "AES-CBC", iv: new Uint8Array(8) }, cbc, P)), {
    "CBC, 8-byte iv: OperationError": (n) => n === "OperationError" });

  const ctr = await crypto.subtle.importKey("raw", K, { name: "AES-CTR" }, false, ["encrypt", "decrypt"]);
  const counter = unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
  const x = await crypto.subtle.encrypt({ name: "AES-CTR", counter, length: 64 }, ctr, P);
  check(hex(x), { "SP 800-38A F.5.1": (h) => h === "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff" });
  check(hex(await crypto.subtle.decrypt({ name: "AES-CTR", counter, length: 64 }, ctr, x)), { "CTR decrypts": (h) => h === hex(P) });
  check(await rejects(crypto.subtle.encrypt({ name: "AES-CTR", counter, length: 0 }, ctr, P)), { "CTR length 0: OperationError": (n) => n === "OperationError" });
  check(await rejects(crypto.subtle.encrypt({ name: "AES-CTR", counter, length: 1 }, ctr, new Uint8Array(48))), {
    "more blocks than a 1-bit counter: OperationError": (n) => n === "OperationError" });

  const zero = await crypto.subtle.importKey("raw", new Uint8Array(16), "AES-GCM", true, ["encrypt", "decrypt"]);
  const g = await crypto.subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, zero, new Uint8Array(16));
  check(hex(g), { "GCM test case 2 (128-bit tag by default)": (h) => h === "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf" });
  const k4 = await crypto.subtle.importKey("raw", unhex("feffe9928665731c6d6a8f9467308308"), "AES-GCM", true, ["encrypt", "decrypt"]);
  const p4 = unhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39");
  const gcm4 = { name: "AES-GCM", iv: unhex("cafebabefacedbaddecaf888"), additionalData: unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2") };
  const c4 = await crypto.subtle.encrypt(gcm4, k4, p4);
  check(hex(c4), { "GCM test case 4 (additional data)": (h) => h.endsWith("5bc94fbc3221a5db94fae95ae7121a47") &&
    h.startsWith("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091") });
  check(hex(await crypto.subtle.decrypt(gcm4, k4, c4)), { "GCM decrypts": (h) => h === hex(p4) });
  const t96 = { ...gcm4, tagLength: 96 };
  const c96 = await crypto.subtle.encrypt(t96, k4, p4);
  check(hex(c96), { "a 96-bit tag is the tag truncated": (h) => h === hex(c4).slice(0, hex(c4).length - 8) });
  check(hex(await crypto.subtle.decrypt(t96, k4, c96)), { "96-bit tag decrypts": (h) => h === hex(p4) });
  const bad = new Uint8Array(c96); bad[bad.length - 1] ^= 1;
  check(await rejects(crypto.subtle.decrypt(t96, k4, bad)), { "a bad 96-bit tag: OperationError": (n) => n === "OperationError" });
  const bad4 = new Uint8Array(c4); bad4[0] ^= 1;
  check(await rejects(crypto.subtle.decrypt(gcm4, k4, bad4)), { "tampered ciphertext: OperationError": (n) => n === "OperationError" });
  const iv16 = { name: "AES-GCM", iv: new Uint8Array(16).fill(7), tagLength: 104 };
  check(hex(await crypto.subtle.decrypt(iv16, k4, await crypto.subtle.encrypt(iv16, k4, p4))), { "16-byte iv, 104-bit tag": (h) => h === hex(p4) });
  check(await rejects(crypto.subtle.encrypt({ ...gcm4, tagLength: 100 }, k4, p4)), { "tagLength 100: OperationError": (n) => n === "OperationError" });
  check(await rejects(crypto.subtle.encrypt({ name: "AES-CBC", iv }, k4, p4)), { "a GCM key for CBC: InvalidAccessError": (n) => n === "InvalidAccessError" });
  check(await rejects(crypto.subtle.importKey("raw", new Uint8Array(20), "AES-GCM", true, ["encrypt"])), { "a 160-bit AES key: DataError": (n) => n === "DataError" });
  check(await rejects(crypto.subtle.importKey("spki", new Uint8Array(16), "AES-GCM", true, ["encrypt"])), { "spki for AES: NotSupportedError": (n) => n === "NotSupportedError" });
  check(await rejects(crypto.subtle.importKey("jwk", new Uint8Array(16), "AES-GCM", true, ["encrypt"])), { "jwk from bytes: TypeError": (n) => n === "TypeError" });
}`)
}

// AES-CTR's counter is the rightmost length bits of the block: with length 8 and a
// counter ending in ff, the second block's counter wraps to 00 within that byte
// (where Go's 128-bit counter would carry into the next byte).
func TestAESCTRCounterWraps(t *testing.T) {
	l := run(t, `
export default async function () {
  const k = await crypto.subtle.importKey("raw", new Uint8Array(16).fill(1), "AES-CTR", true, ["encrypt"]);
  const counter = new Uint8Array(16).fill(0xff);
  const c = await crypto.subtle.encrypt({ name: "AES-CTR", counter, length: 8 }, k, new Uint8Array(32));
  check(c.byteLength, { "two blocks": (n) => n === 32 });
  console.log("keystream " + hex(c));
  const g = await crypto.subtle.generateKey({ name: "AES-CTR", length: "192" }, true, ["encrypt", "decrypt"]);
  check(g.algorithm.length, { "length as a string": (n) => n === 192 });
  check(await rejects(crypto.subtle.generateKey({ name: "AES-CTR", length: 100 }, true, ["encrypt"])), { "100 bits: OperationError": (n) => n === "OperationError" });
}`)
	got := l.bytesAfter(t, "keystream ")
	block, err := aes.NewCipher(bytesOf(1, 16))
	require.NoError(t, err)
	want := make([]byte, 32)
	first := bytesOf(0xff, 16)
	second := bytesOf(0xff, 16)
	second[15] = 0
	block.Encrypt(want[:16], first)
	block.Encrypt(want[16:], second)
	require.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}
