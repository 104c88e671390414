export const options = { scenarios: { a: { executor: "ramping-vus", startVUs: 0, stages: [{duration:"10s",target:10},{duration:"10s",target:10}], gracefulRampDown: "0s", gracefulStop: "5s" }, b: { executor: "constant-vus", vus: 5, duration: "10s", startTime: "25s" } } };
export default function () {}
