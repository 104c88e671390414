export const options = { scenarios: { b: { executor: 'constant-vus', vus: 7, duration: '10s', gracefulStop: '0s', startTime: '5s' }, a: { executor: 'constant-vus', vus: 5, duration: '10s', startTime: '15s' } } };
export default function () {}
