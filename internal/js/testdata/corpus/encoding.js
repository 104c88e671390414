// Area: k6/encoding b64encode/b64decode: std (default, padded), rawstd, url, rawurl;
// string and ArrayBuffer input; ArrayBuffer or string ("s") output.
// Run:  tidemark run internal/js/testdata/corpus/encoding.js   (no HTTP)
// A correct runtime produces: exit code 0, every check passes (checks rate==1); the
// expected values are those of Go's encoding/base64 (and of `base64` on the command line).
import { check } from 'k6';
import encoding from 'k6/encoding';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { checks: ['rate==1'] },
};

function bytes(...b) {
  return new Uint8Array(b).buffer;
}

function same(buf, ...b) {
  const u = new Uint8Array(buf);
  return u.length === b.length && b.every((x, i) => u[i] === x);
}

export default function () {
  check(encoding, {
    'std string': (e) => e.b64encode('hello, world') === 'aGVsbG8sIHdvcmxk',
    'std is the default and pads': (e) => e.b64encode('hi') === 'aGk=' && e.b64encode('hi', 'std') === 'aGk=',
    'rawstd does not pad': (e) => e.b64encode('hi', 'rawstd') === 'aGk',
    'a string is encoded as UTF-8': (e) => e.b64encode('héllo') === 'aMOpbGxv',
    'std uses + and /': (e) => e.b64encode(bytes(0xfb, 0xff, 0xfe)) === '+//+',
    'url uses - and _': (e) => e.b64encode(bytes(0xfb, 0xff, 0xfe), 'url') === '-__-',
    'url pads': (e) => e.b64encode(bytes(0xfb, 0xff), 'url') === '-_8=',
    'rawurl does not pad': (e) => e.b64encode(bytes(0xfb, 0xff), 'rawurl') === '-_8',
    'rawstd of bytes': (e) => e.b64encode(bytes(0xfb, 0xff), 'rawstd') === '+/8',
    'decode to a string with "s"': (e) => e.b64decode('aGk=', 'std', 's') === 'hi',
    'decode rawstd to a string': (e) => e.b64decode('aGk', 'rawstd', 's') === 'hi',
    'decode gives an ArrayBuffer': (e) => {
      const b = e.b64decode('aGVsbG8sIHdvcmxk');
      return b instanceof ArrayBuffer && b.byteLength === 12;
    },
    'decode url': (e) => same(e.b64decode('-_8=', 'url'), 0xfb, 0xff),
    'decode rawurl': (e) => same(e.b64decode('-_8', 'rawurl'), 0xfb, 0xff),
    'round trip of bytes': (e) => same(e.b64decode(e.b64encode(bytes(0, 1, 127, 128, 255))), 0, 1, 127, 128, 255),
  });
}
