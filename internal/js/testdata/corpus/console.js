// Area: console.log, info, warn, error, debug to the log, in init, setup, the
// iteration and teardown.
// Run:  tidemark run internal/js/testdata/corpus/console.js   (no HTTP)
//       add -v (--verbose) to see console.debug
// 1 VU, 1 iteration. A correct runtime produces exit code 0 and these log records
// (source=console), each once except the init one (once per init run, at least twice):
//   info    "console: init"
//   info    "console: setup"
//   info    "console: log"
//   info    "console: info"
//   warning "console: warn"
//   error   "console: error"
//   debug   "console: debug"             (only with -v)
//   info    "console: two args 2"        (arguments joined by a space)
//   info    "console: teardown"
import { check } from 'k6';

console.log('console: init');

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { checks: ['rate==1'] },
};

export function setup() {
  console.log('console: setup');
}

export default function () {
  console.log('console: log');
  console.info('console: info');
  console.warn('console: warn');
  console.error('console: error');
  console.debug('console: debug');
  console.log('console: two args', 2);
  check(console, {
    'console has log, info, warn, error, debug': (c) =>
      ['log', 'info', 'warn', 'error', 'debug'].every((f) => typeof c[f] === 'function'),
  });
}

export function teardown() {
  console.log('console: teardown');
}
