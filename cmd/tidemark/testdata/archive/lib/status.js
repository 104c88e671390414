export function statusOf(s) {
  return Number(s || 200);
}
