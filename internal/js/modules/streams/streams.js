// k6/experimental/streams: the readable half of the WHATWG Streams standard as k6
// documents it (ReadableStream with a default controller and reader, the count and
// byte-length queuing strategies). Written for Tidemark from the standard's algorithms;
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

  return {
    ReadableStream,
    ReadableStreamDefaultReader,
    ReadableStreamDefaultController,
    CountQueuingStrategy,
    ByteLengthQueuingStrategy,
  };
})
