export const options = { scenarios: { z: { executor: 'ramping-vus', startVUs: 0, stages: [{duration:'10s',target:10}], gracefulRampDown: '0s', gracefulStop: '0s' }, a: { executor: 'constant-vus', vus: 100, duration: '1s', gracefulStop: '0s' } } };
export default function () {}
