export const options = { scenarios: { z: { executor: 'constant-vus', vus: 7, duration: '10s', gracefulStop: '0s' }, a: { executor: 'constant-vus', vus: 5, duration: '10s', startTime: '10s' } } };
export default function () {}
