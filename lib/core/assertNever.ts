/*
 * The end of an exhaustive `switch` over a union: a case left unhandled does not compile, and a
 * value no case matched at run time throws, naming it.
 */

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
