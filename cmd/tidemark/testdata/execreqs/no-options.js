export const options = {};
export default function () {}
