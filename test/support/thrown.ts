/** What a synchronous call throws, or undefined when it returns: to assert on the error's fields. */
export function thrownBy(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** The Error a promise rejects with; a promise that resolves, or rejects with no Error, fails the test. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  if (!(outcome.error instanceof Error)) throw new Error(`expected an Error, got ${String(outcome.error)}`);
  return outcome.error;
}
