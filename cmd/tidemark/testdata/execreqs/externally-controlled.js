export const options = { scenarios: { a: { executor: "externally-controlled", vus: 2, maxVUs: 12, duration: "30s" } } };
export default function () {}
