package webcrypto_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// FIPS 180-2 "abc" digests; the promise settles through the VU's event loop, so
// both `await` in an async default function and .then in a sync one work.
func TestDigest(t *testing.T) {
	run(t, `
export default async function () {
  const abc = utf8("abc");
  check(hex(await crypto.subtle.digest("SHA-1", abc)), { "SHA-1": (h) => h === "a9993e364706816aba3e25717850c26c9cd0d89d" });
  check(hex(await crypto.subtle.digest({ name: "sha-256" }, abc.buffer)), {
    "SHA-256, object and lower case name, ArrayBuffer": (h) => h === "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" });
  check(hex(await crypto.subtle.digest("SHA-384", new DataView(abc.buffer))), {
    "SHA-384, DataView": (h) => h === "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7" });
  check(hex(await crypto.subtle.digest("SHA-512", abc)), {
    "SHA-512": (h) => h === "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f" });
  check(await rejects(crypto.subtle.digest("MD5", abc)), { "MD5 is NotSupportedError": (n) => n === "NotSupportedError" });
  check(await rejects(crypto.subtle.digest("SHA-256", "abc")), { "a string is a TypeError": (n) => n === "TypeError" });
  let later = "";
  await new Promise((resolve) => {
    crypto.subtle.digest("SHA-256", abc).then((h) => { later = hex(h); resolve(); });
  });
  check(later, { "then": (h) => h.startsWith("ba7816bf") });
}`)
}

// A sync default function whose promise settles after it returns: the iteration
// waits for it (k6's digest.js example).
func TestDigestThenAfterReturn(t *testing.T) {
	l := run(t, `
export default function () {
  check(1, { "sync": () => true });
  crypto.subtle.digest("SHA-256", utf8("Hello, world!")).then((h) => console.log("digest " + hex(h)));
}`)
	if got := l.value(t, "digest "); got != "315f5bdb76d078c43b8ac0064e4a0164612b1fce77c869345bfc94c75894edd3" {
		t.Fatalf("digest = %s", got)
	}
}

func TestGetRandomValuesAndRandomUUID(t *testing.T) {
	run(t, `
export default function () {
  const a = new Uint32Array(64);
  const same = crypto.getRandomValues(a);
  check(a, { "fills in place and returns the array": (x) => same === x && x.some((v) => v !== 0) });
  const view = new Uint8Array(new ArrayBuffer(32), 8, 8);
  crypto.getRandomValues(view);
  check(new Uint8Array(view.buffer), { "only the view's bytes": (b) => b.slice(0, 8).every((v) => v === 0) && b.slice(16).every((v) => v === 0) });
  for (const T of [Int8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array]) crypto.getRandomValues(new T(4));
  const err = (f) => { try { f(); return "none"; } catch (e) { return e.name; } };
  check(err(() => crypto.getRandomValues(new Float64Array(4))), { "floats: TypeMismatchError": (n) => n === "TypeMismatchError" });
  check(err(() => crypto.getRandomValues(new Uint8Array(65537))), { "over 65536 bytes: QuotaExceededError": (n) => n === "QuotaExceededError" });
  check(err(() => crypto.getRandomValues(new Uint8Array(65536))), { "65536 bytes": (n) => n === "none" });
  const u = crypto.randomUUID();
  check(u, { "a v4 UUID": (s) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(s) && s !== crypto.randomUUID() });
}`)
}

// RFC 4231 test case 2 and HMAC keys generated, exported and imported.
func TestHMAC(t *testing.T) {
	run(t, `
export default async function () {
  const key = await crypto.subtle.importKey("raw", utf8("Jefe"), { name: "HMAC", hash: "SHA-256" }, true, ["sign", "verify"]);
  check(key, { "imported key": (k) => k.type === "secret" && k.extractable && k.algorithm.name === "HMAC" &&
    k.algorithm.hash.name === "SHA-256" && k.algorithm.length === 32 && k.usages.join() === "sign,verify" });
  const data = utf8("what do ya want for nothing?");
  const sig = await crypto.subtle.sign("HMAC", key, data);
  check(hex(sig), { "RFC 4231 case 2": (h) => h === "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843" });
  check(await crypto.subtle.verify("HMAC", key, sig, data), { "verifies": (v) => v === true });
  check(await crypto.subtle.verify("HMAC", key, sig, utf8("what do ya want for something?")), { "other data does not": (v) => v === false });
  const gen = await crypto.subtle.generateKey({ name: "HMAC", hash: { name: "SHA-512" } }, true, ["sign"]);
  check(gen.algorithm.length, { "default length is the block size": (n) => n === 1024 });
  check((await crypto.subtle.exportKey("raw", gen)).byteLength, { "raw export": (n) => n === 128 });
  const short = await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-512", length: 256 }, true, ["sign"]);
  check(short.algorithm.length, { "explicit length": (n) => n === 256 });
  const jwk = await crypto.subtle.exportKey("jwk", key);
  check(jwk, { "jwk": (j) => j.kty === "oct" && j.alg === "HS256" && j.k === "SmVmZQ" && j.ext === true && j.key_ops.join() === "sign,verify" });
  check(await rejects(crypto.subtle.importKey("jwk", jwk, { name: "HMAC", hash: "SHA-384" }, true, ["sign"])), {
    "jwk alg must match the hash": (n) => n === "DataError" });
  check(await rejects(crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, true, [])), { "no usages: SyntaxError": (n) => n === "SyntaxError" });
  check(await rejects(crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, true, ["encrypt"])), { "encrypt: SyntaxError": (n) => n === "SyntaxError" });
  check(await rejects(crypto.subtle.generateKey({ name: "HMAC" }, true, ["sign"])), { "no hash: TypeError": (n) => n === "TypeError" });
  const signOnly = await crypto.subtle.importKey("raw", utf8("Jefe"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  check(await rejects(crypto.subtle.verify("HMAC", signOnly, sig, data)), { "verify without the usage: InvalidAccessError": (n) => n === "InvalidAccessError" });
  check(await rejects(crypto.subtle.exportKey("raw", signOnly)), { "not extractable: InvalidAccessError": (n) => n === "InvalidAccessError" });
  check(await rejects(crypto.subtle.exportKey("pem", key)), { "unknown format: NotSupportedError": (n) => n === "NotSupportedError" });
  check(await rejects(crypto.subtle.sign("HMAC", {}, data)), { "not a key: TypeError": (n) => n === "TypeError" });
}`)
}

// In the init context (no event loop) a promise settles before the call returns, so
// top-level code can chain on it; keys made there serve the iterations.
func TestInitContext(t *testing.T) {
	run(t, `
let initHash = "";
crypto.subtle.digest("SHA-256", utf8("abc")).then((h) => { initHash = hex(h); });
let key;
crypto.subtle.importKey("raw", utf8("Jefe"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]).then((k) => { key = k; });
export default async function () {
  check(initHash, { "digest in the init context": (h) => h.startsWith("ba7816bf") });
  const sig = await crypto.subtle.sign("HMAC", key, utf8("what do ya want for nothing?"));
  check(hex(sig), { "a key imported in the init context signs": (h) => h.startsWith("5bdcc146") });
}`)
}

// VUs running at once each settle their own promises on their own loops.
func TestConcurrentVUs(t *testing.T) {
	h := modulestest.Start(t, map[string]string{"script.js": helpers + `
export default async function () {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
  const data = utf8("vu " + __VU);
  const sigs = await Promise.all([1, 2, 3].map(() => crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, pair.privateKey, data)));
  const ok = await Promise.all(sigs.map((s) => crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, pair.publicKey, s, data)));
  check(ok, { "every signature verifies": (v) => v.every((x) => x === true) });
}`})
	vus := h.VUs(t, 4)
	var wg sync.WaitGroup
	done := make([]bool, len(vus))
	for i, vu := range vus {
		wg.Go(func() { done[i] = vu.Iterate(context.Background()) })
	}
	wg.Wait()
	require.NoError(t, h.Runner.Err())
	require.Equal(t, []bool{true, true, true, true}, done)
	require.Len(t, h.Collector.Of("checks"), 4)
	require.True(t, h.Checks()["every signature verifies"])
}
