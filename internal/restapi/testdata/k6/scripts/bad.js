export const options = { scenarios: { ext: { executor: 'externally-controlled', vus: 1, maxVUs: 2, duration: '60s' } } };
export function setup() { throw new Error("boom"); }
export default function () { }
