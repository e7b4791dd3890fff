import { describe, expect, it } from "vitest";
import { forEachConcurrently, inPool } from "../../lib/core/concurrency.ts";

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("forEachConcurrently", () => {
  it("keeps at most `limit` calls in flight and starts the next as soon as one slot frees", async () => {
    let inFlight = 0;
    let most = 0;
    const order: number[] = [];
    // Item 0 is slow: a fixed batch would wait for it; the window goes on with the others.
    await forEachConcurrently([0, 1, 2, 3, 4, 5], 2, async (item) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await tick(item === 0 ? 40 : 2);
      order.push(item);
      inFlight--;
    });
    expect(most).toBe(2);
    expect(order).toEqual([1, 2, 3, 4, 5, 0]);
  });

  it("stops starting items when shouldStart says false and reports how many started", async () => {
    const seen: number[] = [];
    const started = await forEachConcurrently(
      [1, 2, 3, 4, 5],
      2,
      async (item) => {
        seen.push(item);
      },
      () => seen.length < 3,
    );
    expect(started).toBe(3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("throws the first error after every started call settled, and starts no more", async () => {
    const settled: number[] = [];
    const run = forEachConcurrently([1, 2, 3, 4], 2, async (item) => {
      if (item === 1) throw new Error("boom");
      await tick(5);
      settled.push(item);
    });
    await expect(run).rejects.toThrow("boom");
    expect(settled).toEqual([2]);
  });

  it("refuses a limit below 1", async () => {
    await expect(forEachConcurrently([1], 0, async () => {})).rejects.toThrow(RangeError);
  });
});

describe("inPool", () => {
  it("answers in the items' order, at most `limit` at once, a slow item holding one slot only", async () => {
    let inFlight = 0;
    let most = 0;
    const ended: string[] = [];
    const results = await inPool(
      [0, 1, 2, 3, 4, 5],
      2,
      async (item) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await tick(item === 0 ? 40 : 2);
        inFlight--;
        return item * 10;
      },
      (result, done, total) => ended.push(`${result} ${done}/${total}`),
    );
    expect(results).toEqual([0, 10, 20, 30, 40, 50]);
    expect(most).toBe(2);
    expect(ended).toEqual(["10 1/6", "20 2/6", "30 3/6", "40 4/6", "50 5/6", "0 6/6"]);
  });

  it("throws a failure only once the calls under way have settled, and starts no more", async () => {
    const settled: number[] = [];
    const error = await inPool([0, 1, 2, 3], 2, async (item) => {
      if (item === 1) throw new Error("item 1 failed");
      await tick(20);
      settled.push(item);
      return item;
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ message: "item 1 failed" });
    // Item 0 was under way when item 1 failed: it finished before the failure was thrown; 2 and 3 never started.
    expect(settled).toEqual([0]);
  });

  it("answers no items with none, and refuses a limit below 1", async () => {
    expect(await inPool([], 4, async () => 1)).toEqual([]);
    await expect(inPool([1], 0, async () => 1)).rejects.toBeInstanceOf(RangeError);
  });
});
