export const options = { scenarios: { a: { executor: "ramping-arrival-rate", startRate: 1, stages: [{duration:"10s",target:30}], preAllocatedVUs: 3, maxVUs: 40, gracefulStop: "2s" } } };
export default function () {}
