// Area: k6/data SharedArray: built once from a JSON data file (open() in its function),
// read-only, elements read as copies, length / [i] / for…of, filter gives a plain
// array, and it cannot be created outside the init context.
// Run:  tidemark run internal/js/testdata/corpus/shared-array.js
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// Data: data/users.json, 4 users (ids 1..4: alice, bob, carol, dave).
// A correct runtime produces:
// - exit code 0: every threshold passes (checks rate==1, http_reqs count==8,
//   http_reqs{name:user-by-id} count==8).
// - the log line "shared-array: loading users.json" exactly once per process (the
//   function runs once, whatever the number of VUs).
// - HTTP: 4 VUs x 2 iterations (per-vu-iterations) GET /users/<id>, VU n asking for
//   user n: 8 requests, 2 per user.
import http from 'k6/http';
import { check } from 'k6';
import { SharedArray } from 'k6/data';
import exec from 'k6/execution';

const BASE_URL = __ENV.BASE_URL || 'http://127.0.0.1:8099';

const users = new SharedArray('users', function () {
  console.log('shared-array: loading users.json');
  return JSON.parse(open('./data/users.json'));
});

export const options = {
  scenarios: { users: { executor: 'per-vu-iterations', vus: 4, iterations: 2 } },
  thresholds: {
    http_reqs: ['count==8'],
    'http_reqs{name:user-by-id}': ['count==8'],
    checks: ['rate==1'],
  },
};

export default function () {
  const names = [];
  for (const u of users) {
    names.push(u.name);
  }
  // Elements are frozen, as k6's: an assignment throws in a module (strict code).
  let frozen = false;
  try {
    users[1].name = 'mallory';
  } catch (e) {
    frozen = e instanceof TypeError;
  }
  let threw = false;
  try {
    new SharedArray('too-late', () => [1]);
  } catch (e) {
    threw = true;
  }
  check(users, {
    'length is 4': (a) => a.length === 4,
    'index reads an element': (a) => a[0].name === 'alice' && a[3].id === 4,
    'for…of visits every element in order': () => names.join() === 'alice,bob,carol,dave',
    'an element is read-only': (a) => frozen && a[1].name === 'bob' && Object.isFrozen(a[0]),
    'filter gives a plain array': (a) => {
      const even = a.filter((u) => u.id % 2 === 0);
      return Array.isArray(even) && even.length === 2 && even[1].name === 'dave';
    },
    'SharedArray cannot be created outside init': () => threw,
  });

  const user = users[(exec.vu.idInTest - 1) % users.length];
  const res = http.get(`${BASE_URL}/users/${user.id}`, { tags: { name: 'user-by-id' } });
  check(res, { 'user request is 200': (r) => r.status === 200 });
}
