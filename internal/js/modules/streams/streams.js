// k6/experimental/streams: the WHATWG Streams standard as k6 documents it
// (ReadableStream with a default controller and reader, the count and byte-length
// queuing strategies) and as k6's examples use it (WritableStream with its default
// writer and controller). Written for Tidemark from the standard's algorithms;
// every promise settles as a promise job of the VU's runtime, and what the underlying
// source waits for (timers, I/O) holds the VU's event loop.
(function () {
  'use strict';

  // slots holds every object's internal state, out of the script's reach.
  const slots = new WeakMap();
  const slot = (o, kind) => {
    const s = slots.get(o);
    if (s === undefined || s.kind !== kind) {
      throw new TypeError(`illegal invocation: not a ${kind}`);
    }
    return s;
  };
  const handled = (p) => { p.catch(() => {}); return p; };
  const rejected = (e) => handled(Promise.reject(e));
  const defer = () => {
    const d = {};
    d.promise = new Promise((resolve, reject) => { d.resolve = resolve; d.reject = reject; });
    return d;
  };
  const call = (fn, self, arg) => {
    try {
      return Promise.resolve(fn === undefined ? undefined : fn.call(self, arg));
    } catch (e) {
      return Promise.reject(e);
    }
  };

  function highWaterMarkOf(strategy, def) {
    const hwm = strategy.highWaterMark;
    if (hwm === undefined) {
      return def;
    }
    const n = Number(hwm);
    if (Number.isNaN(n) || n < 0) {
      throw new RangeError(`highWaterMark must be a non-negative number, got ${String(hwm)}`);
    }
    return n;
  }

  class ReadableStream {
    constructor(underlyingSource = {}, strategy = {}) {
      if (underlyingSource === null || typeof underlyingSource !== 'object') {
        throw new TypeError('ReadableStream: the underlying source must be an object');
      }
      if (strategy === null || typeof strategy !== 'object') {
        throw new TypeError('ReadableStream: the queuing strategy must be an object');
      }
      if (underlyingSource.type !== undefined && String(underlyingSource.type) !== 'default') {
        throw new RangeError(`ReadableStream: unsupported underlying source type ${String(underlyingSource.type)}: only 'default' is`);
      }
      for (const m of ['start', 'pull', 'cancel']) {
        if (underlyingSource[m] !== undefined && typeof underlyingSource[m] !== 'function') {
          throw new TypeError(`ReadableStream: the underlying source's ${m} must be a function`);
        }
      }
      if (strategy.size !== undefined && typeof strategy.size !== 'function') {
        throw new TypeError('ReadableStream: the queuing strategy\'s size must be a function');
      }
      const hwm = highWaterMarkOf(strategy, 1);
      const size = strategy.size === undefined ? () => 1 : (chunk) => strategy.size(chunk);
      const s = { kind: 'ReadableStream', state: 'readable', reader: undefined, storedError: undefined, disturbed: false };
      slots.set(this, s);
      setUpController(this, s, underlyingSource, hwm, size);
    }

    get locked() {
      return slot(this, 'ReadableStream').reader !== undefined;
    }

    cancel(reason) {
      let s;
      try {
        s = slot(this, 'ReadableStream');
      } catch (e) {
        return rejected(e);
      }
      if (s.reader !== undefined) {
        return rejected(new TypeError('cannot cancel a stream locked to a reader'));
      }
      return cancelStream(s, reason);
    }

    getReader(options = {}) {
      slot(this, 'ReadableStream');
      const mode = options === null || options === undefined ? undefined : options.mode;
      if (mode !== undefined) {
        throw new RangeError(`getReader: unsupported reader mode ${String(mode)}: only the default reader is`);
      }
      return new ReadableStreamDefaultReader(this);
    }
  }

  function setUpController(stream, s, source, hwm, size) {
    const c = {
      kind: 'ReadableStreamDefaultController', stream: s, queue: [], queueTotalSize: 0,
      started: false, closeRequested: false, pullAgain: false, pulling: false, hwm, size,
      pull: () => call(source.pull, source, controller),
      cancel: (reason) => call(source.cancel, source, reason),
    };
    const controller = Object.create(ReadableStreamDefaultController.prototype);
    slots.set(controller, c);
    s.controller = c;
    // An exception in start() is the constructor's.
    const start = source.start === undefined ? undefined : source.start.call(source, controller);
    Promise.resolve(start).then(() => {
      c.started = true;
      pullIfNeeded(c);
    }, (e) => errorController(c, e));
  }

  class ReadableStreamDefaultController {
    constructor() {
      throw new TypeError('ReadableStreamDefaultController cannot be constructed: a ReadableStream makes its own');
    }

    get desiredSize() {
      return desiredSize(slot(this, 'ReadableStreamDefaultController'));
    }

    close() {
      const c = slot(this, 'ReadableStreamDefaultController');
      if (!canCloseOrEnqueue(c)) {
        throw new TypeError('close: the stream is closed or closing');
      }
      c.closeRequested = true;
      if (c.queue.length === 0) {
        clearAlgorithms(c);
        closeStream(c.stream);
      }
    }

    enqueue(chunk) {
      const c = slot(this, 'ReadableStreamDefaultController');
      if (!canCloseOrEnqueue(c)) {
        throw new TypeError('enqueue: the stream is closed or closing');
      }
      const s = c.stream;
      if (s.reader !== undefined && s.reader.requests.length > 0) {
        s.reader.requests.shift().resolve({ value: chunk, done: false });
      } else {
        let n;
        try {
          n = Number(c.size(chunk));
          if (Number.isNaN(n) || n < 0 || n === Infinity) {
            throw new RangeError(`enqueue: the chunk's size must be a finite non-negative number, got ${n}`);
          }
        } catch (e) {
          errorController(c, e);
          throw e;
        }
        c.queue.push({ chunk, size: n });
        c.queueTotalSize += n;
      }
      pullIfNeeded(c);
    }

    error(e) {
      errorController(slot(this, 'ReadableStreamDefaultController'), e);
    }
  }

  const canCloseOrEnqueue = (c) => !c.closeRequested && c.stream.state === 'readable';

  function desiredSize(c) {
    switch (c.stream.state) {
      case 'errored': return null;
      case 'closed': return 0;
      default: return c.hwm - c.queueTotalSize;
    }
  }

  function shouldPull(c) {
    if (!canCloseOrEnqueue(c) || !c.started) {
      return false;
    }
    const r = c.stream.reader;
    if (r !== undefined && r.requests.length > 0) {
      return true;
    }
    return desiredSize(c) > 0;
  }

  function pullIfNeeded(c) {
    if (!shouldPull(c)) {
      return;
    }
    if (c.pulling) {
      c.pullAgain = true;
      return;
    }
    c.pulling = true;
    c.pull().then(() => {
      c.pulling = false;
      if (c.pullAgain) {
        c.pullAgain = false;
        pullIfNeeded(c);
      }
    }, (e) => errorController(c, e));
  }

  function clearAlgorithms(c) {
    c.pull = () => Promise.resolve();
    c.cancel = () => Promise.resolve();
    c.size = () => 1;
  }

  function errorController(c, e) {
    if (c.stream.state !== 'readable') {
      return;
    }
    c.queue = [];
    c.queueTotalSize = 0;
    clearAlgorithms(c);
    errorStream(c.stream, e);
  }

  function closeStream(s) {
    s.state = 'closed';
    const r = s.reader;
    if (r === undefined) {
      return;
    }
    r.closed.resolve(undefined);
    const reqs = r.requests;
    r.requests = [];
    for (const req of reqs) {
      req.resolve({ value: undefined, done: true });
    }
  }

  function errorStream(s, e) {
    s.state = 'errored';
    s.storedError = e;
    const r = s.reader;
    if (r === undefined) {
      return;
    }
    r.closed.reject(e);
    handled(r.closed.promise);
    const reqs = r.requests;
    r.requests = [];
    for (const req of reqs) {
      req.reject(e);
    }
  }

  function cancelStream(s, reason) {
    s.disturbed = true;
    if (s.state === 'closed') {
      return Promise.resolve(undefined);
    }
    if (s.state === 'errored') {
      return rejected(s.storedError);
    }
    closeStream(s);
    const c = s.controller;
    c.queue = [];
    c.queueTotalSize = 0;
    const result = c.cancel(reason);
    clearAlgorithms(c);
    return result.then(() => undefined);
  }

  class ReadableStreamDefaultReader {
    constructor(stream) {
      let s;
      try {
        s = slot(stream, 'ReadableStream');
      } catch (e) {
        throw new TypeError('ReadableStreamDefaultReader: expected a ReadableStream');
      }
      if (s.reader !== undefined) {
        throw new TypeError('ReadableStreamDefaultReader: the stream is locked to another reader');
      }
      const r = { kind: 'ReadableStreamDefaultReader', stream: s, requests: [], closed: defer() };
      switch (s.state) {
        case 'closed':
          r.closed.resolve(undefined);
          break;
        case 'errored':
          r.closed.reject(s.storedError);
          handled(r.closed.promise);
          break;
      }
      s.reader = r;
      slots.set(this, r);
    }

    get closed() {
      return slot(this, 'ReadableStreamDefaultReader').closed.promise;
    }

    read() {
      let r;
      try {
        r = slot(this, 'ReadableStreamDefaultReader');
      } catch (e) {
        return rejected(e);
      }
      const s = r.stream;
      if (s === undefined) {
        return rejected(new TypeError('read: the reader has released its lock on the stream'));
      }
      s.disturbed = true;
      if (s.state === 'closed') {
        return Promise.resolve({ value: undefined, done: true });
      }
      if (s.state === 'errored') {
        return Promise.reject(s.storedError);
      }
      const c = s.controller;
      if (c.queue.length > 0) {
        const { chunk, size } = c.queue.shift();
        c.queueTotalSize = c.queue.length === 0 ? 0 : c.queueTotalSize - size;
        if (c.closeRequested && c.queue.length === 0) {
          clearAlgorithms(c);
          closeStream(s);
        } else {
          pullIfNeeded(c);
        }
        return Promise.resolve({ value: chunk, done: false });
      }
      const req = defer();
      r.requests.push(req);
      pullIfNeeded(c);
      return req.promise;
    }

    cancel(reason) {
      let r;
      try {
        r = slot(this, 'ReadableStreamDefaultReader');
      } catch (e) {
        return rejected(e);
      }
      if (r.stream === undefined) {
        return rejected(new TypeError('cancel: the reader has released its lock on the stream'));
      }
      // k6 documents the reader's cancel as resolving with the reason.
      return cancelStream(r.stream, reason).then(() => reason);
    }

    releaseLock() {
      const r = slot(this, 'ReadableStreamDefaultReader');
      const s = r.stream;
      if (s === undefined) {
        return;
      }
      const e = new TypeError('the reader released its lock on the stream');
      if (s.state === 'readable') {
        r.closed.reject(e);
      } else {
        r.closed = defer();
        r.closed.reject(e);
      }
      handled(r.closed.promise);
      s.reader = undefined;
      r.stream = undefined;
      const reqs = r.requests;
      r.requests = [];
      for (const req of reqs) {
        req.reject(new TypeError('read: the reader released its lock on the stream'));
      }
    }
  }

  class CountQueuingStrategy {
    constructor(init = {}) {
      if (init === null || typeof init !== 'object') {
        throw new TypeError('CountQueuingStrategy: expected an object {highWaterMark}');
      }
      const hwm = highWaterMarkOf(init, 1);
      Object.defineProperty(this, 'highWaterMark', { value: hwm, enumerable: true });
    }

    size() {
      return 1;
    }
  }

  class ByteLengthQueuingStrategy {
    constructor(init = {}) {
      if (init === null || typeof init !== 'object') {
        throw new TypeError('ByteLengthQueuingStrategy: expected an object {highWaterMark}');
      }
      const hwm = highWaterMarkOf(init, 1);
      Object.defineProperty(this, 'highWaterMark', { value: hwm, enumerable: true });
    }

    size(chunk) {
      return chunk.byteLength;
    }
  }


  // --- WritableStream ---

  // deferred is defer() that knows whether it settled.
  const deferred = () => {
    const d = defer();
    d.settled = false;
    const { resolve, reject } = d;
    d.resolve = (v) => { d.settled = true; resolve(v); };
    d.reject = (e) => { d.settled = true; reject(e); };
    return d;
  };
  const settledDeferred = (ok, v) => {
    const d = deferred();
    if (ok) {
      d.resolve(v);
    } else {
      d.reject(v);
      handled(d.promise);
    }
    return d;
  };
  const closeSentinel = {};

  class WritableStream {
    constructor(underlyingSink = {}, strategy = {}) {
      if (underlyingSink === null || typeof underlyingSink !== 'object') {
        throw new TypeError('WritableStream: the underlying sink must be an object');
      }
      if (strategy === null || typeof strategy !== 'object') {
        throw new TypeError('WritableStream: the queuing strategy must be an object');
      }
      if (underlyingSink.type !== undefined) {
        throw new RangeError(`WritableStream: unsupported underlying sink type ${String(underlyingSink.type)}`);
      }
      for (const m of ['start', 'write', 'close', 'abort']) {
        if (underlyingSink[m] !== undefined && typeof underlyingSink[m] !== 'function') {
          throw new TypeError(`WritableStream: the underlying sink's ${m} must be a function`);
        }
      }
      if (strategy.size !== undefined && typeof strategy.size !== 'function') {
        throw new TypeError('WritableStream: the queuing strategy\'s size must be a function');
      }
      const hwm = highWaterMarkOf(strategy, 1);
      const size = strategy.size === undefined ? () => 1 : (chunk) => strategy.size(chunk);
      const s = {
        kind: 'WritableStream', state: 'writable', storedError: undefined, writer: undefined,
        writeRequests: [], inFlightWriteRequest: undefined, closeRequest: undefined,
        inFlightCloseRequest: undefined, pendingAbortRequest: undefined, backpressure: false,
      };
      slots.set(this, s);
      setUpSinkController(s, underlyingSink, hwm, size);
    }

    get locked() {
      return slot(this, 'WritableStream').writer !== undefined;
    }

    abort(reason) {
      let s;
      try {
        s = slot(this, 'WritableStream');
      } catch (e) {
        return rejected(e);
      }
      if (s.writer !== undefined) {
        return rejected(new TypeError('cannot abort a stream locked to a writer'));
      }
      return abortWritable(s, reason);
    }

    close() {
      let s;
      try {
        s = slot(this, 'WritableStream');
      } catch (e) {
        return rejected(e);
      }
      if (s.writer !== undefined) {
        return rejected(new TypeError('cannot close a stream locked to a writer'));
      }
      if (closeQueuedOrInFlight(s)) {
        return rejected(new TypeError('close: the stream is closing'));
      }
      return closeWritable(s);
    }

    getWriter() {
      slot(this, 'WritableStream');
      return new WritableStreamDefaultWriter(this);
    }
  }

  function setUpSinkController(s, sink, hwm, size) {
    const controller = Object.create(WritableStreamDefaultController.prototype);
    const c = {
      kind: 'WritableStreamDefaultController', stream: s, queue: [], queueTotalSize: 0, started: false, hwm, size,
      write: (chunk) => call2(sink.write, sink, chunk, controller),
      close: () => call(sink.close, sink),
      abort: (reason) => call(sink.abort, sink, reason),
    };
    slots.set(controller, c);
    s.controller = c;
    const start = sink.start === undefined ? undefined : sink.start.call(sink, controller);
    updateBackpressure(s, sinkDesiredSize(c) <= 0);
    Promise.resolve(start).then(() => {
      c.started = true;
      advanceQueue(c);
    }, (e) => {
      c.started = true;
      dealWithRejection(s, e);
    });
  }

  const call2 = (fn, self, a, b) => {
    try {
      return Promise.resolve(fn === undefined ? undefined : fn.call(self, a, b));
    } catch (e) {
      return Promise.reject(e);
    }
  };

  class WritableStreamDefaultController {
    constructor() {
      throw new TypeError('WritableStreamDefaultController cannot be constructed: a WritableStream makes its own');
    }

    error(e) {
      const c = slot(this, 'WritableStreamDefaultController');
      if (c.stream.state === 'writable') {
        errorSink(c, e);
      }
    }
  }

  const sinkDesiredSize = (c) => c.hwm - c.queueTotalSize;
  const closeQueuedOrInFlight = (s) => s.closeRequest !== undefined || s.inFlightCloseRequest !== undefined;
  const inFlight = (s) => s.inFlightWriteRequest !== undefined || s.inFlightCloseRequest !== undefined;

  function clearSink(c) {
    c.write = () => Promise.resolve();
    c.close = () => Promise.resolve();
    c.abort = () => Promise.resolve();
    c.size = () => 1;
  }

  function errorSink(c, e) {
    clearSink(c);
    startErroring(c.stream, e);
  }

  function updateBackpressure(s, bp) {
    const w = s.writer;
    if (w !== undefined && bp !== s.backpressure) {
      if (bp) {
        w.ready = deferred();
      } else {
        w.ready.resolve(undefined);
      }
    }
    s.backpressure = bp;
  }

  function advanceQueue(c) {
    const s = c.stream;
    if (!c.started || s.inFlightWriteRequest !== undefined) {
      return;
    }
    if (s.state === 'erroring') {
      finishErroring(s);
      return;
    }
    if (c.queue.length === 0) {
      return;
    }
    const { chunk } = c.queue[0];
    if (chunk === closeSentinel) {
      processClose(c);
    } else {
      processWrite(c, chunk);
    }
  }

  function dequeue(c) {
    const { size } = c.queue.shift();
    c.queueTotalSize = c.queue.length === 0 ? 0 : c.queueTotalSize - size;
  }

  function processWrite(c, chunk) {
    const s = c.stream;
    s.inFlightWriteRequest = s.writeRequests.shift();
    c.write(chunk).then(() => {
      s.inFlightWriteRequest.resolve(undefined);
      s.inFlightWriteRequest = undefined;
      dequeue(c);
      if (!closeQueuedOrInFlight(s) && s.state === 'writable') {
        updateBackpressure(s, sinkDesiredSize(c) <= 0);
      }
      advanceQueue(c);
    }, (e) => {
      if (s.state === 'writable') {
        clearSink(c);
      }
      s.inFlightWriteRequest.reject(e);
      s.inFlightWriteRequest = undefined;
      dealWithRejection(s, e);
    });
  }

  function processClose(c) {
    const s = c.stream;
    s.inFlightCloseRequest = s.closeRequest;
    s.closeRequest = undefined;
    dequeue(c);
    const closing = c.close();
    clearSink(c);
    closing.then(() => {
      s.inFlightCloseRequest.resolve(undefined);
      s.inFlightCloseRequest = undefined;
      if (s.state === 'erroring') {
        s.storedError = undefined;
        if (s.pendingAbortRequest !== undefined) {
          s.pendingAbortRequest.resolve(undefined);
          s.pendingAbortRequest = undefined;
        }
      }
      s.state = 'closed';
      if (s.writer !== undefined) {
        s.writer.closed.resolve(undefined);
      }
    }, (e) => {
      s.inFlightCloseRequest.reject(e);
      s.inFlightCloseRequest = undefined;
      if (s.pendingAbortRequest !== undefined) {
        s.pendingAbortRequest.reject(e);
        s.pendingAbortRequest = undefined;
      }
      dealWithRejection(s, e);
    });
  }

  function dealWithRejection(s, e) {
    if (s.state === 'writable') {
      startErroring(s, e);
      return;
    }
    finishErroring(s);
  }

  function startErroring(s, reason) {
    s.state = 'erroring';
    s.storedError = reason;
    if (s.writer !== undefined) {
      rejectReady(s.writer, reason);
    }
    if (!inFlight(s) && s.controller.started) {
      finishErroring(s);
    }
  }

  function finishErroring(s) {
    s.state = 'errored';
    s.controller.queue = [];
    s.controller.queueTotalSize = 0;
    for (const req of s.writeRequests) {
      req.reject(s.storedError);
    }
    s.writeRequests = [];
    const abort = s.pendingAbortRequest;
    if (abort === undefined) {
      rejectCloseAndClosed(s);
      return;
    }
    s.pendingAbortRequest = undefined;
    if (abort.wasAlreadyErroring) {
      abort.reject(s.storedError);
      rejectCloseAndClosed(s);
      return;
    }
    s.controller.abort(abort.reason).then(() => {
      abort.resolve(undefined);
      rejectCloseAndClosed(s);
    }, (e) => {
      abort.reject(e);
      rejectCloseAndClosed(s);
    });
  }

  function rejectCloseAndClosed(s) {
    if (s.closeRequest !== undefined) {
      s.closeRequest.reject(s.storedError);
      s.closeRequest = undefined;
    }
    const w = s.writer;
    if (w !== undefined) {
      w.closed.reject(s.storedError);
      handled(w.closed.promise);
    }
  }

  function rejectReady(w, e) {
    if (w.ready.settled) {
      w.ready = deferred();
    }
    w.ready.reject(e);
    handled(w.ready.promise);
  }

  function rejectClosed(w, e) {
    if (w.closed.settled) {
      w.closed = deferred();
    }
    w.closed.reject(e);
    handled(w.closed.promise);
  }

  function abortWritable(s, reason) {
    if (s.state === 'closed' || s.state === 'errored') {
      return Promise.resolve(undefined);
    }
    if (s.pendingAbortRequest !== undefined) {
      return s.pendingAbortRequest.promise;
    }
    const wasAlreadyErroring = s.state === 'erroring';
    const d = deferred();
    d.reason = wasAlreadyErroring ? undefined : reason;
    d.wasAlreadyErroring = wasAlreadyErroring;
    s.pendingAbortRequest = d;
    if (!wasAlreadyErroring) {
      startErroring(s, reason);
    }
    return d.promise;
  }

  function closeWritable(s) {
    if (s.state === 'closed' || s.state === 'errored') {
      return rejected(new TypeError(`close: the stream is ${s.state}`));
    }
    const d = deferred();
    s.closeRequest = d;
    if (s.writer !== undefined && s.backpressure && s.state === 'writable') {
      s.writer.ready.resolve(undefined);
    }
    const c = s.controller;
    c.queue.push({ chunk: closeSentinel, size: 0 });
    advanceQueue(c);
    return d.promise;
  }

  function writerDesiredSize(s) {
    if (s.state === 'errored' || s.state === 'erroring') {
      return null;
    }
    if (s.state === 'closed') {
      return 0;
    }
    return sinkDesiredSize(s.controller);
  }

  class WritableStreamDefaultWriter {
    constructor(stream) {
      let s;
      try {
        s = slot(stream, 'WritableStream');
      } catch (e) {
        throw new TypeError('WritableStreamDefaultWriter: expected a WritableStream');
      }
      if (s.writer !== undefined) {
        throw new TypeError('WritableStreamDefaultWriter: the stream is locked to another writer');
      }
      const w = { kind: 'WritableStreamDefaultWriter', stream: s };
      switch (s.state) {
        case 'writable':
          w.ready = !closeQueuedOrInFlight(s) && s.backpressure ? deferred() : settledDeferred(true);
          w.closed = deferred();
          break;
        case 'erroring':
          w.ready = settledDeferred(false, s.storedError);
          w.closed = deferred();
          break;
        case 'closed':
          w.ready = settledDeferred(true);
          w.closed = settledDeferred(true);
          break;
        default:
          w.ready = settledDeferred(false, s.storedError);
          w.closed = settledDeferred(false, s.storedError);
      }
      s.writer = w;
      slots.set(this, w);
    }

    get closed() {
      return slot(this, 'WritableStreamDefaultWriter').closed.promise;
    }

    get ready() {
      return slot(this, 'WritableStreamDefaultWriter').ready.promise;
    }

    get desiredSize() {
      const w = slot(this, 'WritableStreamDefaultWriter');
      if (w.stream === undefined) {
        throw new TypeError('desiredSize: the writer has released its lock on the stream');
      }
      return writerDesiredSize(w.stream);
    }

    abort(reason) {
      let w;
      try {
        w = slot(this, 'WritableStreamDefaultWriter');
      } catch (e) {
        return rejected(e);
      }
      if (w.stream === undefined) {
        return rejected(new TypeError('abort: the writer has released its lock on the stream'));
      }
      return abortWritable(w.stream, reason);
    }

    close() {
      let w;
      try {
        w = slot(this, 'WritableStreamDefaultWriter');
      } catch (e) {
        return rejected(e);
      }
      const s = w.stream;
      if (s === undefined) {
        return rejected(new TypeError('close: the writer has released its lock on the stream'));
      }
      if (closeQueuedOrInFlight(s)) {
        return rejected(new TypeError('close: the stream is closing'));
      }
      return closeWritable(s);
    }

    releaseLock() {
      const w = slot(this, 'WritableStreamDefaultWriter');
      const s = w.stream;
      if (s === undefined) {
        return;
      }
      const e = new TypeError('the writer released its lock on the stream');
      rejectReady(w, e);
      rejectClosed(w, e);
      s.writer = undefined;
      w.stream = undefined;
    }

    write(chunk) {
      let w;
      try {
        w = slot(this, 'WritableStreamDefaultWriter');
      } catch (e) {
        return rejected(e);
      }
      const s = w.stream;
      if (s === undefined) {
        return rejected(new TypeError('write: the writer has released its lock on the stream'));
      }
      const c = s.controller;
      let size;
      try {
        size = Number(c.size(chunk));
      } catch (e) {
        if (s.state === 'writable') {
          errorSink(c, e);
        }
        size = 1;
      }
      if (s.state === 'errored' || s.state === 'erroring') {
        return rejected(s.storedError);
      }
      if (closeQueuedOrInFlight(s) || s.state === 'closed') {
        return rejected(new TypeError('write: the stream is closing or closed'));
      }
      const d = deferred();
      s.writeRequests.push(d);
      if (Number.isNaN(size) || size < 0 || size === Infinity) {
        errorSink(c, new RangeError(`write: the chunk's size must be a finite non-negative number, got ${size}`));
        return d.promise;
      }
      c.queue.push({ chunk, size });
      c.queueTotalSize += size;
      if (!closeQueuedOrInFlight(s) && s.state === 'writable') {
        updateBackpressure(s, sinkDesiredSize(c) <= 0);
      }
      advanceQueue(c);
      return d.promise;
    }
  }

  return {
    WritableStream,
    WritableStreamDefaultWriter,
    WritableStreamDefaultController,
    ReadableStream,
    ReadableStreamDefaultReader,
    ReadableStreamDefaultController,
    CountQueuingStrategy,
    ByteLengthQueuingStrategy,
  };
})
