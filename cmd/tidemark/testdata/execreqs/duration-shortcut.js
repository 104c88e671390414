export const options = { vus: 4, duration: "1m" };
export default function () {}
