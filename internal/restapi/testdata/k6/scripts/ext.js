import http from 'k6/http';
export const options = { scenarios: { ext: { executor: 'externally-controlled', vus: 2, maxVUs: 5, duration: '60s' } } };
export default function () { http.get('http://127.0.0.1:18799/'); }
