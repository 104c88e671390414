// A hybrid test: protocol VUs put a spike on a service while one browser VU loads a
// page the whole time, so what a person sees (the page's load time, its Web Vitals)
// sits on the same time axis as the load, the HPA's replicas and the pods' throttling.
//   tidemark target &                       # serves /news.php on 127.0.0.1:8099
//   TARGET_URL=http://127.0.0.1:8099/ PAGE_URL=http://127.0.0.1:8099/news.php \
//     tidemark run examples/hybrid-spike.js
// With `tidemark demo`'s simulated cluster, point TARGET_URL at its order service.
// STAGE_SECONDS scales every stage (default 30). It is a plain k6 script: `k6 run`
// runs it unchanged.
import http from 'k6/http';
import { check } from 'k6';
import { browser } from 'k6/browser';

const TARGET = __ENV.TARGET_URL || 'http://127.0.0.1:8099/';
const PAGE = __ENV.PAGE_URL || 'http://127.0.0.1:8099/news.php';
const S = Number(__ENV.STAGE_SECONDS || 30);

export const options = {
  scenarios: {
    spike: {
      executor: 'ramping-arrival-rate',
      exec: 'protocol',
      startRate: 10,
      timeUnit: '1s',
      preAllocatedVUs: 20,
      maxVUs: 200,
      stages: [
        { duration: `${S}s`, target: 10 }, // baseline
        { duration: `${Math.max(1, Math.round(S / 6))}s`, target: 50 }, // the spike
        { duration: `${S}s`, target: 50 },
        { duration: `${Math.max(1, Math.round(S / 6))}s`, target: 10 },
        { duration: `${S}s`, target: 10 }, // recovery
      ],
    },
    page: {
      executor: 'constant-vus',
      exec: 'page',
      vus: 1,
      duration: `${3 * S + 2 * Math.max(1, Math.round(S / 6))}s`,
      options: { browser: { type: 'chromium' } },
    },
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    browser_http_req_failed: ['rate<0.01'],
    'browser_http_req_duration{resource_type:Document}': ['p(95)<2000'],
    browser_web_vital_lcp: ['p(75)<2500'],
  },
};

export function protocol() {
  const res = http.get(TARGET);
  check(res, { 'status is 200': (r) => r.status === 200 });
}

export async function page() {
  const page = await browser.newPage();
  try {
    await page.goto(PAGE);
    check(await page.title(), { 'the page has a title': (t) => t !== '' });
  } finally {
    await page.close();
  }
}
