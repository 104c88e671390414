package fs_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// TestFile opens a file in the init context (awaited in the iteration, as scripts do
// without top-level await) and reads it through every File method and SeekMode.
func TestFile(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{
		"bonjour.txt":  "Bonjour, tout le monde!\n",
		"sub/data.bin": "0123456789",
		"script.js": `
import { check } from 'k6';
import fs, { open, SeekMode, File } from 'k6/experimental/fs';

const pending = open('bonjour.txt');
const nested = fs.open('./sub/data.bin');

async function readAll(file, size) {
  const buf = new Uint8Array(size);
  let out = '', n;
  while ((n = await file.read(buf)) !== null) {
    out += String.fromCharCode(...buf.subarray(0, n));
  }
  return out;
}

export default async function () {
  const file = await pending;
  const info = await file.stat();
  check(info, {
    'stat name': (i) => i.name === 'bonjour.txt',
    'stat size': (i) => i.size === 24,
    'path is absolute': () => file.path.startsWith('/') && file.path.endsWith('/bonjour.txt'),
    'a File': () => file instanceof File,
  });
  check(await readAll(file, 5), { 'read in chunks': (s) => s === 'Bonjour, tout le monde!\n' });
  check(await file.read(new Uint8Array(4)), { 'read at the end is null': (n) => n === null });

  const bin = await nested;
  const buf = new Uint8Array(4);
  const results = [
    await bin.seek(2, SeekMode.Start), await bin.read(buf), String.fromCharCode(...buf),
    await bin.seek(-3, SeekMode.Current), await bin.seek(-2, SeekMode.End), await bin.read(buf),
    String.fromCharCode(...buf.subarray(0, 2)), await bin.seek(20, SeekMode.Start), await bin.read(buf),
  ];
  check(results, { 'seek and read': (r) => JSON.stringify(r) === JSON.stringify([2, 4, '2345', 3, 8, 2, '89', 20, null]) });
  check(SeekMode, { 'SeekMode values': (m) => m.Start === 0 && m.Current === 1 && m.End === 2 });

  const errors = [];
  for (const f of [
    () => bin.seek(-1, SeekMode.Start), () => bin.seek(1, SeekMode.End), () => bin.seek(0, 7),
    () => bin.seek(-100, SeekMode.Current), () => bin.read([1, 2]), () => bin.read(new ArrayBuffer(2)),
    () => open('bonjour.txt'),
  ]) {
    try { await f(); errors.push('no error'); } catch (e) { errors.push(String(e)); }
  }
  check(errors, {
    'seek from Start below zero': (e) => e[0].startsWith('TypeError') && e[0].includes('SeekMode.Start the offset must be zero or more'),
    'seek from End above zero': (e) => e[1].includes('SeekMode.End the offset must be zero or less'),
    'unknown whence': (e) => e[2].includes('whence 7'),
    'seek before the start': (e) => e[3].includes('before the start of the file'),
    'read into an array': (e) => e[4].startsWith('TypeError') && e[4].includes('expected a Uint8Array'),
    'read into an ArrayBuffer': (e) => e[5].includes('expected a Uint8Array'),
    'open outside the init context': (e) => e[6].includes('only available in the init context'),
  });
  let ctorErr = '';
  try { new File(); } catch (e) { ctorErr = String(e); }
  check(ctorErr, { 'File is not constructible': (e) => e.startsWith('TypeError') && e.includes('open(path)') });
}
`})
	h.Iterate(t)
	h.RequireChecks(t, 16)
}

// TestFileOffsetPerVU reads the same file in two VUs: each VU's File has its own
// offset, the content is read once per process.
func TestFileOffsetPerVU(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{
		"f.txt": "abcdef",
		"script.js": `
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
const pending = open('f.txt');
export default async function () {
  const f = await pending;
  const buf = new Uint8Array(3);
  const n = await f.read(buf);
  check(String.fromCharCode(...buf), { ['first read of VU ' + __VU + ' and iteration ' + __ITER]: (s) => n === 3 && s === (__ITER === 0 ? 'abc' : 'def') });
}
`})
	vus := h.VUs(t, 2)
	for _, vu := range vus {
		require.True(t, vu.Iterate(context.Background()))
	}
	require.True(t, vus[0].Iterate(context.Background()))
	h.RequireChecks(t, 3)
}

// TestOpenMissingFile: a file that does not exist rejects open's promise with an error
// naming the file; the script can catch it.
func TestOpenMissingFile(t *testing.T) {
	t.Parallel()
	h := modulestest.Start(t, map[string]string{"script.js": `
import { check } from 'k6';
import { open } from 'k6/experimental/fs';
// A rejection with no handler at the end of the init context fails it: the script
// catches them there.
const missing = open('nope.txt').catch((e) => e);
const empty = open('').catch((e) => e);
export default async function () {
  const msg = String(await missing), msg2 = String(await empty);
  check(null, {
    'missing file named': () => msg.includes('open nope.txt') && msg.includes('no such file'),
    'empty path': () => msg2.startsWith('TypeError') && msg2.includes('expected a file path'),
  });
}
`})
	h.Iterate(t)
	h.RequireChecks(t, 2)
}

// TestExampleFS runs k6's examples/experimental/fs/fs.js (100 VUs, 1000 iterations over
// a shared file). It awaits open() at the top level: it runs once the runtime has
// top-level await.
func TestExampleFS(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "testdata", "realworld", "k6", "examples", "experimental", "fs", "fs.js")
	out := modulestest.RunTest(t, path, nil)
	require.NoError(t, out.Err)
	require.Equal(t, 0, out.ExitCode)
	require.Regexp(t, `iterations\.+: 1000 `, out.Summary)
}
