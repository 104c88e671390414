export const options = { vus: 3, iterations: 30 };
export default function () {}
