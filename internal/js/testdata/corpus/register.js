// Seed shape: register.js, a sign-up whose user name comes from Math.random() on every
// request, sent as JSON.
// Run:  tidemark run internal/js/testdata/corpus/register.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces:
// - exit code 0: every threshold passes (http_reqs count==10, checks rate==1).
// - HTTP: 10 POST /register named "register" (2 VUs, shared-iterations), each with a
//   different user name "user_<base-36 digits>" (the check fails if a VU draws a name
//   twice: Math.random() must not repeat).
import http from 'k6/http';
import { check } from 'k6';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

export const options = {
  vus: 2,
  iterations: 10,
  thresholds: {
    http_reqs: ['count==10'],
    'http_reqs{name:register}': ['count==10'],
    checks: ['rate==1'],
  },
};

const seen = new Set(); // per VU

function randomUserName() {
  return `user_${Math.random().toString(36).slice(2, 12)}`;
}

export default function () {
  const username = randomUserName();
  const payload = JSON.stringify({
    username,
    email: `${username}@example.com`,
    password: 'P@ssw0rd!',
  });
  const res = http.post(`${BASE_URL}/register`, payload, {
    headers: { 'Content-Type': 'application/json' },
    tags: { name: 'register' },
  });
  check(res, {
    registered: (r) => r.status === 200,
    'user name is random and new': () => /^user_[0-9a-z]+$/.test(username) && !seen.has(username),
    'the body carries the name': (r) => r.request.body.includes(`"username":"${username}"`),
  });
  seen.add(username);
}
