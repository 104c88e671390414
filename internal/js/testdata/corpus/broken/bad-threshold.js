// Broken options: a threshold expression that does not parse ("p95<500": the
// percentile needs parentheses, p(95)).
// Error class: invalid configuration (thresholds); the message names the metric
// http_req_duration and the expression.
// k6 exit code: 104 (InvalidConfig). Nothing runs.
import { sleep } from 'k6';

export const options = {
  vus: 1,
  iterations: 1,
  thresholds: { http_req_duration: ['p95<500'] },
};

export default function () {
  sleep(0.1);
}
