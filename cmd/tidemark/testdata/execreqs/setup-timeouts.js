export const options = { setupTimeout: "2m", teardownTimeout: "3m", vus: 2, duration: "5s" };
export default function () {}
