export const options = { scenarios: { a: { executor: "constant-arrival-rate", rate: 1, duration: "10s", preAllocatedVUs: 2, maxVUs: 8, gracefulStop: "0s" }, b: { executor: "constant-vus", vus: 5, duration: "10s", startTime: "10s" } } };
export default function () {}
