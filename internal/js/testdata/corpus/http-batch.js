// Area: k6/http batch: array items as [method, url, body, params], as objects and as URL
// strings; an object of requests gives an object of responses with the same keys.
// Run:  tidemark run internal/js/testdata/corpus/http-batch.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: every threshold passes (http_reqs count==9, checks rate==1).
// - HTTP: 9 requests in 1 iteration: 3 + 2 + 2 + 2 (the last batch has GET /stats,
//   which the target answers but does not count: the target counts 8).
// - responses come back in request order (arrays) or under their keys (objects).
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: {
    http_reqs: ['count==9'],
    'http_reqs{name:batch-post}': ['count==1'],
    checks: ['rate==1'],
  },
};

function all200(responses) {
  return responses.every((r) => r.status === 200);
}

export default function () {
  const arrays = http.batch([
    ['GET', `${BASE_URL}/b/one`],
    ['POST', `${BASE_URL}/b/two`, 'two', { tags: { name: 'batch-post' } }],
    ['GET', `${BASE_URL}/b/three`, null, { headers: { 'X-Batch': '3' } }],
  ]);
  check(arrays, {
    'array items: 3 responses': (rs) => rs.length === 3,
    'array items: all 200': all200,
    'array items: in order': (rs) =>
      rs[0].url === `${BASE_URL}/b/one` && rs[1].request.method === 'POST' && rs[2].url === `${BASE_URL}/b/three`,
  });

  const objects = http.batch([
    { method: 'GET', url: `${BASE_URL}/b/four` },
    { method: 'PUT', url: `${BASE_URL}/b/five`, body: 'five', params: { tags: { kind: 'object-item' } } },
  ]);
  check(objects, {
    'object items: 2 responses': (rs) => rs.length === 2,
    'object items: all 200': all200,
    'object items: PUT second': (rs) => rs[1].request.method === 'PUT',
  });

  const strings = http.batch([`${BASE_URL}/b/six`, `${BASE_URL}/b/seven`]);
  check(strings, {
    'URL strings: 2 GETs': (rs) => rs.length === 2 && rs.every((r) => r.request.method === 'GET'),
    'URL strings: all 200': all200,
  });

  const named = http.batch({
    home: `${BASE_URL}/b/home`,
    stats: ['GET', `${BASE_URL}/stats`],
  });
  check(named, {
    'object in, object out': (m) => Object.keys(m).sort().join() === 'home,stats',
    'named home is 200': (m) => m.home.status === 200,
    'named stats is JSON': (m) => typeof m.stats.json('requests') === 'number',
  });
}
