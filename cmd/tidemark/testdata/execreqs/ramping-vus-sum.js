export const options = { scenarios: { a: { executor: "ramping-vus", startVUs: 0, stages: [{duration:"10s",target:10}] , gracefulRampDown: "0s"}, b: { executor: "ramping-vus", startVUs: 5, stages: [{duration:"10s",target:0}] , gracefulRampDown:"0s"} } };
export default function () {}
