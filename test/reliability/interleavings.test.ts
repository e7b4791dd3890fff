import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StaleError } from "../../lib/core/errors.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { writeNext } from "../../lib/steps/writeNext.ts";
import { tempDataDir } from "../support/cli.ts";
import { Interleaving } from "./support/interleave.ts";
import { tally } from "./support/tally.ts";

/**
 * Two writers on one run, their store calls interleaved one at a time in an
 * order drawn from a seed (fast-check draws the seeds and shrinks a failure to
 * the smallest schedule). Whatever the order: no gap, no duplicate seq, and no
 * event a writer was told it wrote goes missing.
 */
const SETTINGS = { seed: 20260601, numRuns: 60 };
let fixture: Interleaving;
const counts = { schedules: 0, storeCalls: 0, appends: 0, staleStops: 0 };

beforeAll(async () => {
  fixture = await Interleaving.open(tempDataDir("reliability-interleavings"));
});
afterAll(async () => {
  tally("seeded interleavings: two writers", counts);
  await fixture.close();
});

const message = (text: string) => ({
  append: { type: "user_message", text } as NewEvent,
  result: (e: RunEvent) => e,
});

/** seqs 1..n with none missing or repeated, and the events each writer got back all stored, unchanged. */
async function expectWhole(runId: string, written: RunEvent[]): Promise<RunEvent[]> {
  const log = await fixture.store.read(runId);
  expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
  for (const event of written) expect(log[event.seq - 1]).toEqual(event);
  expect(written).toHaveLength(new Set(written.map((e) => e.seq)).size);
  return log;
}

describe("two writers of one generation, any interleaving", () => {
  it("every append lands once, in order per writer, with no gap", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 4 }), async (seed, perWriter) => {
        const { runId, turns, deps } = await fixture.run(seed, 2);
        const write = (w: number) =>
          turns.run(async () => {
            const mine: RunEvent[] = [];
            for (let i = 0; i < perWriter; i++) {
              mine.push(await writeNext(deps[w]!, runId, 1, () => message(`w${w}-${i}`)));
            }
            return mine;
          });
        const written = (await Promise.all([write(0), write(1)])).flat();
        const log = await expectWhole(runId, written);
        for (const w of [0, 1]) {
          const texts = log.flatMap((e) =>
            e.type === "user_message" && e.text.startsWith(`w${w}-`) ? [e.text] : [],
          );
          expect(texts, turns.trace.join(" ")).toEqual(
            Array.from({ length: perWriter }, (_, i) => `w${w}-${i}`),
          );
        }
        counts.schedules++;
        counts.storeCalls += turns.trace.length;
        counts.appends += written.length;
      }),
      SETTINGS,
    );
  });
});

describe("a generation-1 writer racing a resume to generation 2, any interleaving", () => {
  it("nothing of generation 1 lands after the resume; the old writer stops with StaleError", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer(), fc.integer({ min: 1, max: 4 }), fc.nat(3), async (seed, n, resumeAt) => {
        const { runId, turns, deps } = await fixture.run(seed, 2);
        const old = turns.run(async () => {
          const mine: RunEvent[] = [];
          try {
            for (let i = 0; i < n; i++)
              mine.push(await writeNext(deps[0]!, runId, 1, () => message(`old-${i}`)));
          } catch (error) {
            expect(error).toBeInstanceOf(StaleError);
            counts.staleStops++;
          }
          return mine;
        });
        const resumer = turns.run(async () => {
          const mine: RunEvent[] = [];
          for (let i = 0; i <= Math.min(resumeAt, n); i++) {
            mine.push(
              await writeNext(deps[1]!, runId, "any", (_, facts) =>
                i === Math.min(resumeAt, n)
                  ? {
                      append: {
                        type: "resumed",
                        generation: facts.generation + 1,
                        kind: "call_model",
                        description: "r",
                      },
                      result: (e) => e,
                    }
                  : message(`new-${i}`),
              ),
            );
          }
          return mine;
        });
        const written = (await Promise.all([old, resumer])).flat();
        const log = await expectWhole(runId, written);
        const resumed = log.findIndex((e) => e.type === "resumed");
        expect(
          log.filter((e) => e.type === "resumed"),
          turns.trace.join(" "),
        ).toHaveLength(1);
        const after = log
          .slice(resumed + 1)
          .filter((e) => e.type === "user_message" && e.text.startsWith("old-"));
        expect(after, turns.trace.join(" ")).toEqual([]);
        counts.schedules++;
        counts.storeCalls += turns.trace.length;
        counts.appends += written.length;
      }),
      SETTINGS,
    );
  });
});

describe("the schedule", () => {
  it("is the same for the same seed", async () => {
    const traces: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const { runId, turns, deps } = await fixture.run(42, 2);
      await Promise.all(
        [0, 1].map((w) => turns.run(() => writeNext(deps[w]!, runId, 1, () => message(`w${w}`)))),
      );
      traces.push(turns.trace);
    }
    expect(traces[1]).toEqual(traces[0]);
  });
});
