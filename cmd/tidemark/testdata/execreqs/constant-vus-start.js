export const options = { scenarios: { a: { executor: "constant-vus", vus: 7, duration: "10s", startTime: "5s" } } };
export default function () {}
