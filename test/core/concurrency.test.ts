import { describe, expect, it } from "vitest";
import { forEachConcurrently } from "../../lib/core/concurrency.ts";

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
