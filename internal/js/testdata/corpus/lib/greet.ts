// A local TypeScript module for typescript.ts (not a test script).
export interface Greeting {
  text: string;
  length: number;
}

export function greet(name: string): Greeting {
  const text = `Hello, ${name}!`;
  return { text, length: text.length };
}
