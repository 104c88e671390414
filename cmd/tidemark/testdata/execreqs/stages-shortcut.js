export const options = { stages: [{duration:"5s",target:10},{duration:"5s",target:3}] };
export default function () {}
