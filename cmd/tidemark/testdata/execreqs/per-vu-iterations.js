export const options = { scenarios: { a: { executor: "per-vu-iterations", vus: 4, iterations: 10, maxDuration: "1m", gracefulStop: "5s" } } };
export default function () {}
