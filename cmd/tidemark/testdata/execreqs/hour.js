export const options = { scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1h', gracefulStop: '0s' } } };
export default function () {}
