// Area: a TypeScript script (.ts): types are stripped (esbuild's transform, as k6 does),
// nothing is type-checked; interfaces, type aliases, generics, enums, `as`, a type-only
// import and a local .ts module.
// Run:  tidemark run internal/js/testdata/corpus/typescript.ts
//       (tidemark target on BASE_URL, default http://127.0.0.1:8099)
// A correct runtime produces: exit code 0, every threshold passes (checks rate==1,
// http_reqs count==2); HTTP: POST /ts/orders (JSON body {"customer":"c-1","qty":2,
// "kind":"small"}) and GET /ts/greeting/15 (the length of "Hello, corpus!" is 14, plus 1).
import http from 'k6/http';
import { check } from 'k6';
import type { Options } from 'k6/options';
import { greet, type Greeting } from './lib/greet.ts';

const BASE_URL: string = __ENV.BASE_URL || 'http://127.0.0.1:8099';

enum Kind {
  Small = 'small',
  Large = 'large',
}

interface OrderBody {
  customer: string;
  qty: number;
  kind: Kind;
}

type Status = 200 | 201;

function first<T>(items: T[]): T {
  return items[0];
}

export const options: Options = {
  vus: 1,
  iterations: 1,
  thresholds: { http_reqs: ['count==2'], checks: ['rate==1'] },
};

export default function (): void {
  const body: OrderBody = { customer: `c-${__VU}`, qty: first<number>([2, 3]), kind: Kind.Small };
  const res = http.post(`${BASE_URL}/ts/orders`, JSON.stringify(body), {
    headers: { 'Content-Type': 'application/json' },
  });
  const ok: Status = 200;
  const g: Greeting = greet('corpus');
  check(res, {
    'status is 200': (r) => r.status === ok,
    'enum value sent': (r) => (r.request.body as string) === '{"customer":"c-1","qty":2,"kind":"small"}',
    'local .ts module': () => g.text === 'Hello, corpus!' && g.length === 14,
  });
  const res2 = http.get(`${BASE_URL}/ts/greeting/${g.length + 1}`);
  check(res2, { 'second request is 200': (r) => r.status === 200 });
}
