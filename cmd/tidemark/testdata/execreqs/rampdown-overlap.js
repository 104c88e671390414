export const options = { scenarios: { a: { executor: "ramping-vus", startVUs: 0, stages: [{duration:"10s",target:10},{duration:"10s",target:0}], gracefulRampDown: "0s", gracefulStop: "0s" }, b: { executor: "constant-vus", vus: 5, duration: "10s", startTime: "15s" } } };
export default function () {}
