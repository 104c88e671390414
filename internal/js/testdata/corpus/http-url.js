// Area: k6/http `http.url` tagged template and the name tag.
// Run:  tidemark run internal/js/testdata/corpus/http-url.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: every threshold passes.
// - HTTP: 5 requests in 1 iteration. The 3 made with http.url`${BASE_URL}/items/${id}`
//   all carry name = url = "${}/items/${}" (every ${…} becomes a literal ${}, the base
//   URL included): http_reqs{name:${}/items/${}} count==3. The 2 with tags.name "items"
//   carry name = url = "items": http_reqs{name:items} count==2.
// - res.url is the concrete URL (http://…/items/1, /items/2, /items/3).
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: {
    http_reqs: ['count==5'],
    'http_reqs{name:${}/items/${}}': ['count==3'],
    'http_reqs{name:items}': ['count==2'],
    checks: ['rate==1'],
  },
};

export default function () {
  for (const id of [1, 2, 3]) {
    const res = http.get(http.url`${BASE_URL}/items/${id}`);
    check(res, {
      'http.url request is 200': (r) => r.status === 200,
      'res.url is the concrete URL': (r) => r.url === `${BASE_URL}/items/${id}`,
    });
  }
  // The same grouping by hand: one name for every id.
  for (const id of [4, 5]) {
    const res = http.post(`${BASE_URL}/items/${id}`, null, { tags: { name: 'items' } });
    check(res, { 'named request is 200': (r) => r.status === 200 });
  }
}
