// The hybrid example (docs/web-vitals.md): protocol VUs put a 10 → 50 RPS spike on the
// simulated cluster's order service while one browser VU loads a page whose largest
// content, an image, waits for that same service. The report then shows the page's LCP
// per stage of the spike, next to the replicas the HPA wanted and did not have Ready.
//
//   tidemark target &                                        # serves the page on :8099
//   tidemark demo --scenario examples/hybrid/hybrid.js
//
// TARGET_URL is the order service (the demo sets it); PAGE_URL is the page of
// `tidemark target` (default http://127.0.0.1:8099/page), which fetches its image from
// ?backend= before it answers. STAGE_SECONDS scales the stages (default 10: a 10 s
// baseline, a 5 s ramp, a 30 s hold). It is a plain k6 script: `k6 run` runs it unchanged.
import http from 'k6/http';
import { browser } from 'k6/browser';
import { check, sleep } from 'k6';

const TARGET_URL = __ENV.TARGET_URL || 'http://127.0.0.1:8099';
const PAGE_URL = __ENV.PAGE_URL || 'http://127.0.0.1:8099/page';
const S = Number(__ENV.STAGE_SECONDS || 10);
const RAMP = Math.max(1, Math.round(S / 2));

export const options = {
  scenarios: {
    spike: {
      executor: 'ramping-arrival-rate',
      startRate: 10,
      timeUnit: '1s',
      preAllocatedVUs: 20,
      maxVUs: 200,
      stages: [
        { duration: `${S}s`, target: 10 }, // baseline
        { duration: `${RAMP}s`, target: 50 }, // the spike
        { duration: `${3 * S}s`, target: 50 },
      ],
    },
    page: {
      executor: 'constant-vus',
      exec: 'page',
      vus: 1,
      duration: `${4 * S + RAMP}s`,
      options: { browser: { type: 'chromium' } },
    },
  },
  thresholds: {
    'http_req_duration{scenario:spike}': ['p(95)<500'],
    browser_web_vital_lcp: ['p(75)<2500'],
  },
};

export default function () {
  const res = http.get(`${TARGET_URL}/orders/${Math.floor(Math.random() * 1000) + 1}`, {
    tags: { name: 'order' },
    timeout: '10s',
  });
  check(res, { 'status is 200': (r) => r.status === 200 });
}

// page loads the page with an order's status as its largest content, and leaves it
// once a frame is painted: its LCP is then final.
export async function page() {
  const order = Math.floor(Math.random() * 1000) + 1;
  const p = await browser.newPage();
  try {
    const res = await p.goto(`${PAGE_URL}?backend=${encodeURIComponent(`${TARGET_URL}/orders/${order}`)}`, { waitUntil: 'load' });
    check(res, { 'page status is 200': (r) => r !== null && r.status() === 200 });
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  } finally {
    await p.close();
  }
  sleep(1);
}
