export const options = { scenarios: { a: { executor: "shared-iterations", vus: 5, iterations: 10, maxDuration: "10s", gracefulStop: "0s" }, b: { executor: "constant-vus", vus: 5, duration: "10s", startTime: "5s" } } };
export default function () {}
