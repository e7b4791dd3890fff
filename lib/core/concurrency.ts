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

/**
 * `work` over `items` with at most `limit` calls in flight (forEachConcurrently's sliding window),
 * the results in the items' order; `ended` is told of each result as it comes, with how many are
 * done of how many. A failure is thrown as forEachConcurrently throws it: once every started call
 * has settled, none started after it.
 */
export async function inPool<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  ended?: (result: R, done: number, total: number) => void,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit: expected an integer >= 1, got ${limit}`);
  const results = new Array<R>(items.length);
  if (items.length === 0) return results;
  let done = 0;
  // No more lanes than items: a limit far above the work starts no idle lanes.
  await forEachConcurrently(items.keys(), Math.min(limit, items.length), async (at) => {
    const result = await work(items[at] as T);
    results[at] = result;
    ended?.(result, ++done, items.length);
  });
  return results;
}
