export const options = { scenarios: { a: { executor: "ramping-vus", startVUs: 2, stages: [{duration:"10s",target:20},{duration:"5s",target:5}], gracefulRampDown: "7s", gracefulStop: "3s" } } };
export default function () {}
