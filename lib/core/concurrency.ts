/**
 * Run `each` over `items` with at most `limit` calls in flight: a sliding window, so one slow
 * call holds one slot, never a whole batch. `shouldStart`, asked before each item starts, stops
 * launching new ones when it says false (those in flight finish). The first error is thrown once
 * every started call has settled, so nothing runs on behind the caller's back. Returns how many
 * items were started.
 */
export async function forEachConcurrently<T>(
  items: Iterable<T>,
  limit: number,
  each: (item: T) => Promise<unknown>,
  shouldStart: () => boolean = () => true,
): Promise<number> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit: expected an integer >= 1, got ${limit}`);
  const iterator = items[Symbol.iterator]();
  let started = 0;
  let failure: { error: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && shouldStart()) {
      const next = iterator.next();
      if (next.done) return;
      started++;
      try {
        await each(next.value);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, lane));
  if (failure !== undefined) throw failure.error;
  return started;
}
