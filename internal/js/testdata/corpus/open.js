// Area: open() in the init context: text (a string) and binary ('b': an ArrayBuffer),
// relative to the script; open() is not available in VU code.
// Run:  tidemark run internal/js/testdata/corpus/open.js   (no HTTP)
// Data: data/hello.txt ("hello, tidemark\nsecond line\n", 28 bytes) and data/bytes.bin
// (8 bytes: 00 01 7f 80 fe ff 0a 0d; not valid UTF-8, so a text read would change it).
// A correct runtime produces: exit code 0, every check passes (checks rate==1).
import { check } from 'k6';

const text = open('./data/hello.txt');
const binary = open('./data/bytes.bin', 'b');

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { checks: ['rate==1'] },
};

export default function () {
  let threw = false;
  try {
    open('./data/hello.txt');
  } catch (e) {
    threw = true;
  }
  check(null, {
    'text is a string': () => typeof text === 'string',
    'text content': () => text === 'hello, tidemark\nsecond line\n',
    'text lines': () => text.split('\n').length === 3,
    "'b' gives an ArrayBuffer": () => binary instanceof ArrayBuffer,
    'binary length is 8': () => binary.byteLength === 8,
    'binary bytes are unchanged': () => {
      const want = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff, 0x0a, 0x0d];
      const got = new Uint8Array(binary);
      return want.every((b, i) => got[i] === b);
    },
    'open() throws outside the init context': () => threw,
  });
}
