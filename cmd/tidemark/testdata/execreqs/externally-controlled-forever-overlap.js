export const options = { scenarios: { a: { executor: 'externally-controlled', vus: 1, maxVUs: 3, duration: '0s' }, b: { executor: 'constant-vus', vus: 2, duration: '1s', startTime: '1m' } } };
export default function () {}
