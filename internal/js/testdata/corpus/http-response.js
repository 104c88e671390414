// Area: k6/http Response: status, body, headers, url, proto, remote_ip/remote_port,
// error/error_code, timings.*, request.*, json() and json(path).
// Run:  tidemark run internal/js/testdata/corpus/http-response.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: every threshold passes (http_reqs count==4, http_req_failed
//   rate==0.25 (the 503 alone), checks rate==1).
// - HTTP: 4 requests in 1 iteration: /r/plain (200 "ok\n"), /r/sized?size=100,
//   /r/down?status=503, /stats (JSON; the target does not count it, so it reports
//   requests >= 3 and by_status."200" >= 2).
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';
const HOST = BASE_URL.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
const PORT = Number(HOST.includes(':') ? HOST.split(':').pop() : BASE_URL.startsWith('https') ? 443 : 80);

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: {
    http_reqs: ['count==4'],
    http_req_failed: ['rate==0.25'],
    checks: ['rate==1'],
  },
};

function one(v) {
  return Array.isArray(v) ? v[0] : v;
}

const TIMINGS = ['blocked', 'connecting', 'tls_handshaking', 'sending', 'waiting', 'receiving', 'duration'];

export default function () {
  const plain = http.get(`${BASE_URL}/r/plain`);
  check(plain, {
    'status 200': (r) => r.status === 200,
    'body "ok\\n"': (r) => r.body === 'ok\n',
    'Content-Type header': (r) => one(r.headers['Content-Type']) === 'text/plain; charset=utf-8',
    'Content-Length header': (r) => one(r.headers['Content-Length']) === '3',
    'url is the final URL': (r) => r.url === `${BASE_URL}/r/plain`,
    'proto HTTP/1.1': (r) => r.proto === 'HTTP/1.1',
    'remote_port is the target port': (r) => r.remote_port === PORT,
    'remote_ip is set': (r) => typeof r.remote_ip === 'string' && r.remote_ip.length > 0,
    'no error': (r) => r.error === '' && r.error_code === 0,
    'timings are numbers >= 0': (r) => TIMINGS.every((k) => typeof r.timings[k] === 'number' && r.timings[k] >= 0),
    'timings.duration = sending + waiting + receiving': (r) =>
      Math.abs(r.timings.duration - (r.timings.sending + r.timings.waiting + r.timings.receiving)) < 0.01,
    'no TLS on http': (r) => BASE_URL.startsWith('https') || r.timings.tls_handshaking === 0,
    'request.method and request.url': (r) => r.request.method === 'GET' && r.request.url === `${BASE_URL}/r/plain`,
  });
  let threw = false;
  try {
    plain.json();
  } catch (e) {
    threw = true;
  }
  check(threw, { 'json() of a non-JSON body throws': (t) => t === true });

  const sized = http.get(`${BASE_URL}/r/sized?size=100`);
  check(sized, {
    'body of 100 bytes': (r) => r.body.length === 100,
    'body starts "abc" and ends with a newline': (r) => r.body.startsWith('abc') && r.body.endsWith('\n'),
  });

  const down = http.get(`${BASE_URL}/r/down?status=503`);
  check(down, {
    'status 503': (r) => r.status === 503,
    'error_code 1503 for a 503': (r) => r.error_code === 1503,
  });

  const stats = http.get(`${BASE_URL}/stats`);
  const all = stats.json();
  check(stats, {
    'stats is JSON': (r) => one(r.headers['Content-Type']) === 'application/json',
    'json() gives the object': () => typeof all === 'object' && typeof all.started === 'string',
    "json('requests') is a number >= 3": (r) => typeof r.json('requests') === 'number' && r.json('requests') >= 3,
    "json('by_status.200') >= 2": (r) => r.json('by_status.200') >= 2,
    "json('by_status.503') >= 1": (r) => r.json('by_status.503') >= 1,
  });
}
