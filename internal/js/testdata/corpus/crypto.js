// Area: k6/crypto: md5, sha1, sha256, sha512 (hex and base64 output), hmac, createHash
// and createHMAC (update, digest), ArrayBuffer input, randomBytes.
// Run:  tidemark run internal/js/testdata/corpus/crypto.js   (no HTTP)
// A correct runtime produces: exit code 0, every check passes (checks rate==1); the
// expected digests are those of Go's crypto packages and of `openssl dgst`.
import { check } from 'k6';
import crypto from 'k6/crypto';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { checks: ['rate==1'] },
};

const HELLO = {
  md5: ['5d41402abc4b2a76b9719d911017c592', 'XUFAKrxLKna5cZ2REBfFkg=='],
  sha1: ['aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d', 'qvTGHdzF6KLavt4PO0gs2a6pQ00='],
  sha256: ['2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824', 'LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ='],
  sha512: [
    '9b71d224bd62f3785d96d46ad3ea3d73319bfbc2890caadae2dff72519673ca72323c3d99ba5c11d7c7acc6e14b8c5da0c4663475c2e5c3adef46f73bcdec043',
    'm3HSJL1i83hdltRq0+o9czGb+8KJDKra4t/3JRlnPKcjI8PZm6XBHXx6zG4UuMXaDEZjR1wuXDre9G9zvN7AQw==',
  ],
};

// HMAC of "hello" with the key "secret".
const HMAC = {
  md5: 'bade63863c61ed0b3165806ecd6acefc',
  sha256: '88aab3ede8d3adf94d26ab90d3bafd4a2083070c3bcce9c014ee04a443847c0b',
  sha256_base64: 'iKqz7ejTrflNJquQ07r9SiCDBww7zOnAFO4EpEOEfAs=',
  sha512:
    'db1595ae88a62fd151ec1cba81b98c39df82daae7b4cb9820f446d5bf02f1dcfca6683d88cab3e273f5963ab8ec469a746b5b19086371239f67d1e5f99a79440',
};

export default function () {
  const sets = {};
  for (const alg of Object.keys(HELLO)) {
    sets[`${alg} hex`] = () => crypto[alg]('hello', 'hex') === HELLO[alg][0];
    sets[`${alg} base64`] = () => crypto[alg]('hello', 'base64') === HELLO[alg][1];
  }
  sets['hmac md5 hex'] = () => crypto.hmac('md5', 'secret', 'hello', 'hex') === HMAC.md5;
  sets['hmac sha256 hex'] = () => crypto.hmac('sha256', 'secret', 'hello', 'hex') === HMAC.sha256;
  sets['hmac sha256 base64'] = () => crypto.hmac('sha256', 'secret', 'hello', 'base64') === HMAC.sha256_base64;
  sets['hmac sha512 hex'] = () => crypto.hmac('sha512', 'secret', 'hello', 'hex') === HMAC.sha512;
  sets['createHash: update twice, digest'] = () => {
    const h = crypto.createHash('sha256');
    h.update('hel');
    h.update('lo');
    return h.digest('hex') === HELLO.sha256[0];
  };
  sets['createHMAC: update, digest'] = () => {
    const h = crypto.createHMAC('sha256', 'secret');
    h.update('hello');
    return h.digest('hex') === HMAC.sha256;
  };
  sets['an ArrayBuffer hashes as its bytes'] = () =>
    crypto.sha256(new Uint8Array([104, 101, 108, 108, 111]).buffer, 'hex') === HELLO.sha256[0];
  sets['randomBytes(16) is an ArrayBuffer of 16 bytes'] = () => {
    const b = crypto.randomBytes(16);
    return b instanceof ArrayBuffer && b.byteLength === 16;
  };
  check(null, sets);
}
