// Web Vitals of one document, measured with PerformanceObserver and reported through the
// runtime binding BINDING, one JSON string per report. Written from the W3C specs (Paint
// Timing, Largest Contentful Paint, Layout Instability, Event Timing, Navigation Timing)
// and web.dev's definitions of each vital.
//
// TTFB, FCP and FID are final when known (they cannot change) and reported once. LCP, CLS
// and INP change while the page lives: each change is reported as provisional, and the
// value is final when the page is hidden or when FLUSH is called (the driver calls it
// before it closes the page). A document that goes away (a navigation) may not get its
// last words out, so the driver takes a document's latest provisional values as final
// when the document ends.
(function () {
  'use strict';
  const binding = BINDING;
  const flushName = FLUSH;
  if (window !== window.top || typeof window[binding] !== 'function' || window[flushName]) {
    return;
  }
  const send = window[binding];
  const doc = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const url = location.href;
  const sent = new Set();
  let seq = 0;

  const navigation = () => {
    const all = performance.getEntriesByType('navigation');
    return all.length > 0 ? all[0] : null;
  };
  // A prerendered page starts counting when it is shown (activationStart).
  const activationStart = () => {
    const nav = navigation();
    return nav && nav.activationStart > 0 ? nav.activationStart : 0;
  };
  const latest = new Map();
  // report sends a vital's value: final, or provisional when it may still change (a
  // provisional value equal to the last one sent is not sent again).
  const report = (name, value, final) => {
    if (sent.has(name) || !(value >= 0) || !Number.isFinite(value)) {
      return;
    }
    if (final) {
      sent.add(name);
    } else if (latest.get(name) === value) {
      return;
    }
    latest.set(name, value);
    seq++;
    try {
      send(JSON.stringify({ doc: doc, seq: seq, name: name, value: value, url: url, final: !!final }));
    } catch (e) {
      // The binding is gone (the target is closing): nothing to report to.
    }
  };
  const observe = (type, callback, options) => {
    try {
      if (!PerformanceObserver.supportedEntryTypes.includes(type)) {
        return null;
      }
      const po = new PerformanceObserver((list) => callback(list.getEntries()));
      po.observe(Object.assign({ type: type, buffered: true }, options || {}));
      return po;
    } catch (e) {
      return null;
    }
  };
  // A page that was hidden before it painted has no meaningful paint timings.
  let hiddenAt = document.visibilityState === 'hidden' ? 0 : Infinity;

  // TTFB: responseStart of the navigation, from the activation.
  const ttfb = () => {
    const nav = navigation();
    if (nav && nav.responseStart > 0) {
      report('ttfb', Math.max(nav.responseStart - activationStart(), 0), true);
    }
  };

  // FCP: the first-contentful-paint entry of Paint Timing.
  observe('paint', (entries) => {
    for (const e of entries) {
      if (e.name === 'first-contentful-paint' && e.startTime < hiddenAt) {
        report('fcp', Math.max(e.startTime - activationStart(), 0), true);
      }
    }
  });

  // LCP: the latest largest-contentful-paint candidate; the browser stops emitting
  // candidates at the first input or scroll, and the value is final when the page hides.
  let lcp = -1;
  const lcpObserver = observe('largest-contentful-paint', (entries) => {
    for (const e of entries) {
      if (e.startTime < hiddenAt) {
        lcp = Math.max(e.startTime - activationStart(), 0);
      }
    }
    if (lcp >= 0) {
      report('lcp', lcp, false);
    }
  });

  // CLS: the largest session window of layout shifts without recent input. A window
  // ends after a gap of more than 1 s between shifts, or when it spans 5 s.
  let cls = 0;
  let windowValue = 0;
  let windowFirst = 0;
  let windowLast = 0;
  const addShift = (e) => {
    if (e.hadRecentInput) {
      return;
    }
    if (windowValue > 0 && e.startTime - windowLast <= 1000 && e.startTime - windowFirst <= 5000) {
      windowValue += e.value;
    } else {
      windowValue = e.value;
      windowFirst = e.startTime;
    }
    windowLast = e.startTime;
    cls = Math.max(cls, windowValue);
  };
  const clsObserver = observe('layout-shift', (entries) => {
    entries.forEach(addShift);
    report('cls', cls, false);
  });
  if (clsObserver) {
    report('cls', 0, false);
  }

  // INP: the latency of each interaction (the longest event-timing duration of its
  // interactionId); INP is the worst one, less one per 50 interactions (the 98th
  // percentile of a page with many).
  const interactions = new Map();
  const addInteraction = (e) => {
    if (!e.interactionId) {
      return;
    }
    const prev = interactions.get(e.interactionId) || 0;
    interactions.set(e.interactionId, Math.max(prev, e.duration));
  };
  const interacted = () => {
    const i = inp();
    if (i >= 0) {
      report('inp', i, false);
    }
  };
  const inpObserver = observe('event', (entries) => {
    entries.forEach(addInteraction);
    interacted();
  }, { durationThreshold: 16 });

  // FID: the first input's delay until its handlers started; the first input also
  // counts as an interaction, whatever its duration.
  const firstInput = (e) => {
    addInteraction(e);
    if (e.startTime < hiddenAt) {
      report('fid', Math.max(e.processingStart - e.startTime, 0), true);
    }
  };
  const fidObserver = observe('first-input', (entries) => {
    entries.forEach(firstInput);
    interacted();
  });
  const inp = () => {
    if (interactions.size === 0) {
      return -1;
    }
    const latencies = Array.from(interactions.values()).sort((a, b) => b - a);
    return latencies[Math.min(Math.floor(interactions.size / 50), latencies.length - 1)];
  };

  // final reports what is pending and stops observing: the page is hidden or going.
  const final = () => {
    const take = (po, f) => {
      if (po) {
        f(po.takeRecords());
      }
    };
    take(lcpObserver, (entries) => {
      for (const e of entries) {
        if (e.startTime < hiddenAt) {
          lcp = Math.max(e.startTime - activationStart(), 0);
        }
      }
    });
    take(inpObserver, (entries) => entries.forEach(addInteraction));
    take(fidObserver, (entries) => entries.forEach(firstInput));
    take(clsObserver, (entries) => entries.forEach(addShift));
    ttfb();
    if (lcp >= 0) {
      report('lcp', lcp, true);
    }
    if (clsObserver) {
      report('cls', cls, true);
    }
    const i = inp();
    if (i >= 0) {
      report('inp', i, true);
    }
  };

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') {
      hiddenAt = Math.min(hiddenAt, performance.now());
      final();
    }
  }, true);
  window.addEventListener('pagehide', final, true);
  if (document.readyState === 'complete') {
    ttfb();
  } else {
    window.addEventListener('load', () => setTimeout(ttfb, 0), { once: true });
  }

  // The driver's flush: report what is pending, and say how many reports this document
  // sent, so that the driver knows when it has them all.
  Object.defineProperty(window, flushName, {
    value: () => {
      final();
      return JSON.stringify({ doc: doc, sent: seq });
    },
  });
})();
