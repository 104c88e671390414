package streams_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tidemark/tidemark/internal/js/modules/modulestest"
)

// run runs script's default function once in a VU and requires its checks to pass.
func run(t *testing.T, script string, checks int) {
	t.Helper()
	h := modulestest.Start(t, map[string]string{"script.js": script}, modulestest.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
	h.Iterate(t)
	h.RequireChecks(t, checks)
}

// TestReadableStreamTimers reads a stream whose source enqueues from timers: the
// iteration waits on the VU's event loop until the stream closes.
func TestReadableStreamTimers(t *testing.T) {
	t.Parallel()
	run(t, `
import { check } from 'k6';
import { ReadableStream } from 'k6/experimental/streams';
import { setTimeout } from 'k6/timers';

export default async function () {
  let n = 0;
  const stream = new ReadableStream({
    start(controller) {
      const tick = () => {
        if (n < 5) {
          controller.enqueue(++n);
          setTimeout(tick, 5);
          return;
        }
        controller.close();
      };
      setTimeout(tick, 5);
    },
  });
  const reader = stream.getReader();
  const got = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      check(value, { 'done has no value': (v) => v === undefined });
      break;
    }
    got.push(value);
  }
  check(got, { 'every chunk in order': (g) => g.join() === '1,2,3,4,5' });
  check(await reader.closed, { 'closed resolves': (v) => v === undefined });
  check(await reader.read(), { 'read after close is done': (r) => r.done === true && r.value === undefined });
}
`, 4)
}

// TestPullAndBackpressure: pull is called while the queue is below its high-water
// mark (a CountQueuingStrategy, or a custom size), not again while its promise is
// pending; desiredSize follows the queue.
func TestPullAndBackpressure(t *testing.T) {
	t.Parallel()
	run(t, `
import { check } from 'k6';
import { ReadableStream, CountQueuingStrategy, ByteLengthQueuingStrategy } from 'k6/experimental/streams';

export default async function () {
  let pulls = 0, ctl;
  const stream = new ReadableStream({
    start(c) { ctl = c; },
    pull(c) {
      pulls++;
      if (pulls > 6) { c.close(); return; }
      return Promise.resolve().then(() => c.enqueue('chunk ' + pulls));
    },
  }, new CountQueuingStrategy({ highWaterMark: 3 }));
  await Promise.resolve(); await Promise.resolve(); await Promise.resolve();
  for (let i = 0; i < 10; i++) await null;
  check(null, {
    'pulled up to the high-water mark': () => pulls === 3 && ctl.desiredSize === 0,
  });
  const reader = stream.getReader();
  const got = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) got.push(r.value);
  check(got, { 'every pulled chunk': (g) => g.length === 6 && g[0] === 'chunk 1' && g[5] === 'chunk 6' });
  check(ctl.desiredSize, { 'desiredSize of a closed stream is 0': (d) => d === 0 });

  const cqs = new CountQueuingStrategy({ highWaterMark: 7 });
  const bls = new ByteLengthQueuingStrategy({ highWaterMark: 16 });
  check(null, {
    'CountQueuingStrategy': () => cqs.highWaterMark === 7 && cqs.size('anything') === 1 && new CountQueuingStrategy().highWaterMark === 1,
    'ByteLengthQueuingStrategy': () => bls.highWaterMark === 16 && bls.size(new Uint8Array(5)) === 5,
  });

  let sizeCtl;
  new ReadableStream({ start(c) { sizeCtl = c; } }, new ByteLengthQueuingStrategy({ highWaterMark: 10 }));
  sizeCtl.enqueue(new Uint8Array(4));
  const afterOne = sizeCtl.desiredSize;
  sizeCtl.enqueue(new ArrayBuffer(8));
  check(null, { 'desiredSize counts bytes': () => afterOne === 6 && sizeCtl.desiredSize === -2 });
}
`, 6)
}

// TestCancelErrorRelease covers cancel (stream and reader), controller.error, the
// lock, releaseLock and the TypeErrors k6 documents.
func TestCancelErrorRelease(t *testing.T) {
	t.Parallel()
	run(t, `
import { check } from 'k6';
import { ReadableStream, ReadableStreamDefaultReader } from 'k6/experimental/streams';

async function failure(f) {
  try { await f(); } catch (e) { return e; }
  return 'no error';
}

export default async function () {
  let reason, ctl;
  const s = new ReadableStream({
    start(c) { ctl = c; c.enqueue('a'); c.enqueue('b'); },
    cancel(r) { reason = r; },
  });
  const r = s.getReader();
  check(null, { 'locked': () => s.locked === true });
  const lockedCancel = await failure(() => s.cancel('x'));
  const second = await failure(() => s.getReader());
  const ctorSecond = await failure(() => new ReadableStreamDefaultReader(s));
  check(null, {
    'cancel of a locked stream rejects': () => lockedCancel instanceof TypeError,
    'a second reader throws': () => second instanceof TypeError && ctorSecond instanceof TypeError,
  });
  check(await r.read(), { 'read a': (x) => x.value === 'a' && x.done === false });
  check(await r.cancel('enough'), { 'reader.cancel resolves with its reason': (v) => v === 'enough' });
  check(null, { 'source cancel got the reason': () => reason === 'enough' });
  check(await r.read(), { 'canceled stream is done, queue dropped': (x) => x.done === true });
  const enqueueClosed = await failure(() => ctl.enqueue('c'));
  check(enqueueClosed, { 'enqueue after cancel throws': (e) => e instanceof TypeError });

  const s2 = new ReadableStream({ start(c) { ctl = c; } });
  const r2 = s2.getReader();
  const pending = r2.read();
  ctl.error(new Error('boom'));
  const e1 = await failure(() => pending);
  const e2 = await failure(() => r2.read());
  const e3 = await failure(() => r2.closed);
  check(null, {
    'error rejects pending reads': () => e1.message === 'boom',
    'error rejects later reads and closed': () => e2.message === 'boom' && e3.message === 'boom',
    'desiredSize of an errored stream is null': () => ctl.desiredSize === null,
  });

  const s3 = new ReadableStream();
  const r3 = s3.getReader();
  const waiting = r3.read();
  r3.releaseLock();
  const released = await failure(() => waiting);
  const afterRelease = await failure(() => r3.read());
  check(null, {
    'releaseLock rejects pending reads': () => released instanceof TypeError,
    'read after releaseLock rejects': () => afterRelease instanceof TypeError,
    'released stream is unlocked': () => s3.locked === false,
  });
  const r4 = s3.getReader();
  check(null, { 'new reader after release': () => r4 instanceof ReadableStreamDefaultReader });
  r4.releaseLock();
  const canceled = await s3.cancel('r');
  check(await r3.closed.catch((e) => e), { 'stream.cancel resolves with undefined; a released reader is closed with a TypeError': (e) => canceled === undefined && e instanceof TypeError });

  const thrower = await failure(() => new ReadableStream({ start() { throw new Error('start failed'); } }));
  const rejecting = new ReadableStream({ start() { return Promise.reject(new Error('late')); } }).getReader();
  const late = await failure(() => rejecting.read());
  const badType = await failure(() => new ReadableStream({ type: 'bytes' }));
  const badHwm = await failure(() => new ReadableStream({}, { highWaterMark: -1 }));
  const badReader = await failure(() => new ReadableStreamDefaultReader({}));
  const closeTwice = await failure(() => { const st = new ReadableStream({ start(c) { c.close(); c.close(); } }); });
  check(null, {
    'an exception in start is the constructor\'s': () => thrower.message === 'start failed',
    'a rejected start errors the stream': () => late.message === 'late',
    'only the default type': () => badType instanceof RangeError,
    'negative highWaterMark': () => badHwm instanceof RangeError,
    'a reader needs a stream': () => badReader instanceof TypeError,
    'close twice throws': () => closeTwice instanceof TypeError,
  });
}
`, 22)
}

// TestExampleStreams runs k6's examples/experimental/streams.js: five numbers, one
// per second, then "we are done".
func TestExampleStreams(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	path := filepath.Join("..", "..", "testdata", "realworld", "k6", "examples", "experimental", "streams.js")
	out := modulestest.RunTest(t, path, nil, modulestest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, out.Err)
	require.Equal(t, 0, out.ExitCode)
	text := logs.String()
	for i := 1; i <= 5; i++ {
		require.Contains(t, text, "received number "+string(rune('0'+i))+" from stream")
	}
	require.Less(t, strings.Index(text, "received number 5"), strings.Index(text, "we are done"))
}

// TestWritableStream writes through a writer with backpressure (ready), closes, and
// covers abort, errors from the sink and the lock.
func TestWritableStream(t *testing.T) {
	t.Parallel()
	run(t, `
import { check } from 'k6';
import { WritableStream, WritableStreamDefaultWriter, CountQueuingStrategy } from 'k6/experimental/streams';
import { setTimeout } from 'k6/timers';

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function failure(f) {
  try { await f(); } catch (e) { return e; }
  return 'no error';
}

export default async function () {
  const log = [];
  let inFlight = 0, maxInFlight = 0;
  const s = new WritableStream({
    start() { log.push('start'); },
    async write(chunk, controller) {
      inFlight++; maxInFlight = Math.max(maxInFlight, inFlight);
      await delay(2);
      inFlight--;
      log.push(chunk);
    },
    close() { log.push('close'); },
  }, new CountQueuingStrategy({ highWaterMark: 2 }));
  const w = s.getWriter();
  check(null, { 'locked': () => s.locked && w.desiredSize === 2 });
  const writes = [];
  for (let i = 1; i <= 5; i++) {
    await w.ready;
    writes.push(w.write('c' + i));
  }
  await Promise.all(writes);
  await w.close();
  await w.closed;
  check(log, {
    'every chunk in order, then close': (l) => l.join() === 'start,c1,c2,c3,c4,c5,close',
    'one write at a time': () => maxInFlight === 1,
    'desiredSize of a closed stream': () => w.desiredSize === 0,
  });
  const late = await failure(() => w.write('late'));
  check(late, { 'write after close rejects': (e) => e instanceof TypeError });

  let aborted;
  const s2 = new WritableStream({ abort(r) { aborted = r; } });
  const w2 = s2.getWriter();
  await w2.abort('stop');
  const afterAbort = await failure(() => w2.write('x'));
  check(null, {
    'abort reaches the sink': () => aborted === 'stop',
    'write after abort rejects with the reason': () => afterAbort === 'stop',
  });

  const s3 = new WritableStream({ write() { throw new Error('sink failed'); } });
  const w3 = s3.getWriter();
  const failed = await failure(() => w3.write('x'));
  const closed = await failure(() => w3.closed);
  check(null, {
    'a failing write rejects': () => failed.message === 'sink failed' && closed.message === 'sink failed',
    'errored desiredSize is null': () => w3.desiredSize === null,
  });

  const s4 = new WritableStream();
  const w4 = s4.getWriter();
  const second = await failure(() => new WritableStreamDefaultWriter(s4));
  const lockedAbort = await failure(() => s4.abort());
  w4.releaseLock();
  const released = await failure(() => w4.write('x'));
  await s4.close();
  check(null, {
    'one writer at a time': () => second instanceof TypeError && lockedAbort instanceof TypeError,
    'write after releaseLock rejects': () => released instanceof TypeError && !s4.locked,
  });
}
`, 11)
}

// TestExampleWritableStreams runs k6's examples/experimental/writable-streams.js: five
// chunks written slowly under backpressure, the close, then "we are done".
func TestExampleWritableStreams(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	path := filepath.Join("..", "..", "testdata", "realworld", "k6", "examples", "experimental", "writable-streams.js")
	out := modulestest.RunTest(t, path, nil, modulestest.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, out.Err)
	require.Equal(t, 0, out.ExitCode)
	text := logs.String()
	order := []string{"stream opened", "wrote chunk 1", "wrote chunk 5", "stream closed after receiving: chunk 1, chunk 2, chunk 3, chunk 4, chunk 5", "we are done"}
	last := -1
	for _, line := range order {
		i := strings.Index(text, line)
		require.Greater(t, i, last, "%q out of order in %s", line, text)
		last = i
	}
}
