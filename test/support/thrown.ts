/** What a synchronous call throws, or undefined when it returns: to assert on the error's fields. */
export function thrownBy(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}
