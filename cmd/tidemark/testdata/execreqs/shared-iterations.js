export const options = { scenarios: { a: { executor: "shared-iterations", vus: 4, iterations: 10 } } };
export default function () {}
