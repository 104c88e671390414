export const options = { scenarios: { a: { executor: 'ramping-vus', startVUs: 0, stages: [{duration:'10s',target:10}], gracefulRampDown: '0s', gracefulStop: '0s' }, b: { executor: 'constant-vus', vus: 100, duration: '1s', gracefulStop: '0s', startTime: '8s' } } };
export default function () {}
