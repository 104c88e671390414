export const options = { scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1500ms', gracefulStop: '250ms' } } };
export default function () {}
