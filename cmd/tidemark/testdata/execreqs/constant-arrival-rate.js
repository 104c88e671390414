export const options = { scenarios: { a: { executor: "constant-arrival-rate", rate: 10, duration: "20s", preAllocatedVUs: 5, maxVUs: 50 } } };
export default function () {}
