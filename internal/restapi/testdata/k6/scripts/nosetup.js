export default function () { }
