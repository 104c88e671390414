export const options = { scenarios: { a: { executor: "constant-vus", vus: 10, duration: "10s" }, b: { executor: "constant-vus", vus: 5, duration: "10s", startTime: "10s" } } };
export default function () {}
