import { describe, expect, it } from "vitest";
import { ResponseCheckpoints } from "../../lib/steps/checkpoint.ts";

/** A clock and timers the test moves by hand: `advance` fires what falls due, in order. */
function manualTime() {
  let now = 0;
  const timers: { at: number; fn: () => void; live: boolean }[] = [];
  return {
    now: () => now,
    schedule(ms: number, fn: () => void) {
      const timer = { at: now + ms, fn, live: true };
      timers.push(timer);
      return () => {
        timer.live = false;
      };
    },
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.live && t.at <= until).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        now = due.at;
        due.live = false;
        due.fn();
        await flushPromises();
      }
      now = until;
      await flushPromises();
    },
  };
}

const flushPromises = () => new Promise((resolve) => setImmediate(resolve));

function setup(write: (text: string) => Promise<boolean> = async () => true) {
  const time = manualTime();
  const saved: string[] = [];
  const failures: unknown[] = [];
  const checkpoints = new ResponseCheckpoints({
    now: time.now,
    schedule: time.schedule,
    write: async (text) => {
      const go = await write(text);
      saved.push(text);
      return go;
    },
    failed: (error) => failures.push(error),
    intervalMs: 2_000,
    maxChars: 4_096,
  });
  return { time, saved, failures, checkpoints };
}

describe("checkpoints of a streaming response", () => {
  it("saves nothing before 2 s, then what came since, every 2 s", async () => {
    const { time, saved, checkpoints } = setup();
    checkpoints.add("Once ");
    await time.advance(1_999);
    expect(saved).toEqual([]);
    checkpoints.add("upon ");
    await time.advance(1);
    expect(saved).toEqual(["Once upon "]);
    checkpoints.add("a ");
    await time.advance(1_000);
    checkpoints.add("time");
    await time.advance(999);
    expect(saved).toEqual(["Once upon "]);
    await time.advance(1);
    expect(saved).toEqual(["Once upon ", "a time"]);
  });

  it("saves 4,096 characters at once, without waiting for the clock", async () => {
    const { saved, checkpoints } = setup();
    checkpoints.add("x".repeat(4_000));
    await flushPromises();
    expect(saved).toEqual([]);
    checkpoints.add("y".repeat(96));
    await flushPromises();
    expect(saved).toEqual(["x".repeat(4_000) + "y".repeat(96)]);
  });

  it("takes text while a save is under way and saves it next, in order", async () => {
    let release: (() => void) | undefined;
    const { saved, checkpoints } = setup((text) =>
      text.startsWith("a")
        ? new Promise((resolve) => (release = () => resolve(true)))
        : Promise.resolve(true),
    );
    checkpoints.add("a".repeat(4_096));
    checkpoints.add("b".repeat(4_096));
    await flushPromises();
    expect(saved).toEqual([]);
    release!();
    await flushPromises();
    expect(saved).toEqual(["a".repeat(4_096), "b".repeat(4_096)]);
  });

  it("a failed save fails nothing: its text is kept and saved with the next", async () => {
    let fail = true;
    const { time, saved, failures, checkpoints } = setup(async () => {
      if (fail) {
        fail = false;
        throw new Error("store unavailable");
      }
      return true;
    });
    checkpoints.add("Once ");
    expect(() => checkpoints.add("upon ")).not.toThrow();
    await time.advance(2_000);
    expect(failures).toHaveLength(1);
    expect(saved).toEqual([]);
    checkpoints.add("a time");
    await time.advance(2_000);
    expect(saved).toEqual(["Once upon a time"]);
  });

  it("stops saving once the log moved on", async () => {
    const { time, saved, checkpoints } = setup(async () => false);
    checkpoints.add("Once ");
    await time.advance(2_000);
    checkpoints.add("upon");
    await time.advance(10_000);
    expect(saved).toEqual(["Once "]);
  });

  it("settle waits for the save under way and saves nothing after it", async () => {
    const { time, saved, checkpoints } = setup();
    checkpoints.add("Once ");
    await checkpoints.settle();
    checkpoints.add("upon");
    await time.advance(10_000);
    expect(saved).toEqual([]);
  });
});
