// A script with a local module, an open()ed file and an options block, for
// tidemark archive and k6 archive (k6.tar is this script archived by k6 v1.8.1 with
// -e STATUS=203).
import http from 'k6/http';
import { statusOf } from './lib/status.js';

const extra = open('./data/extra.txt').trim();

export const options = {
  scenarios: { load: { executor: 'shared-iterations', vus: 2, iterations: 6 } },
  thresholds: { http_reqs: ['count==6'] },
  tags: { team: 'archive' },
};

export default function () {
  http.get(`${__ENV.URL}/?status=${statusOf(__ENV.STATUS)}&from=${extra}`);
}
