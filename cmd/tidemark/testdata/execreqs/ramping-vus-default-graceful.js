export const options = { scenarios: { a: { executor: "ramping-vus", stages: [{duration:"10s",target:20},{duration:"5s",target:0}] } } };
export default function () {}
