/** What a client call threw: a plain call, a promise, or the first step of a stream; undefined when nothing. */
export async function failure(call: () => unknown): Promise<unknown> {
  try {
    const result = call();
    if (result instanceof Promise) await result;
    else await (result as AsyncGenerator).next();
  } catch (error) {
    return error;
  }
  return undefined;
}
