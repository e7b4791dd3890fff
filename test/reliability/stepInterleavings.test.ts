import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewEvent } from "../../lib/core/events.ts";
import { callModel } from "../../lib/steps/callModel.ts";
import { runTool } from "../../lib/steps/runTool.ts";
import { type ShownEvent, script, tempDataDir } from "../support/cli.ts";
import { expectSound, lines } from "./support/checks.ts";
import { harness } from "./support/harness.ts";
import { Interleaving } from "./support/interleave.ts";
import { tally } from "./support/tally.ts";

/**
 * Whole steps of one generation racing on one run (sibling RunTools, duplicate
 * deliveries of each, a CallModel), their store calls interleaved in an order
 * drawn from a seed. Whatever the order: each call answered once, no note
 * written twice, and at most one response after the batch.
 */
const SETTINGS = { seed: 20260603, numRuns: 40 };
let fixture: Interleaving;
let ids = 0;
const counts = { schedules: 0, storeCalls: 0, interruptedThoughItRan: 0 };

beforeAll(async () => {
  fixture = await Interleaving.open(tempDataDir("reliability-step-interleavings"));
});
afterAll(async () => {
  tally("seeded interleavings: steps", counts);
  await fixture.close();
});

describe("sibling and duplicate steps of one generation, any interleaving", () => {
  it("every call is answered once, no note is written twice, at most one response follows", async () => {
    const model = script(fixture.dir, "after-batch", [
      { text: "unused", stop: "stop" },
      { text: "Done", stop: "stop" },
    ]);
    await fc.assert(
      fc.asyncProperty(fc.integer(), async (seed) => {
        const id = `steps-${++ids}`;
        const call = (i: number) => ({
          id: `c${i}`,
          name: "write_note",
          arguments: JSON.stringify({ text: `${id}-${i}` }),
        });
        const batch: NewEvent = {
          type: "model_response",
          text: "",
          toolCalls: [call(0), call(1)],
          stop: "tool_calls",
        };
        const { runId, turns, deps } = await fixture.run(seed, 5, model, [batch]);
        const input = { runId, generation: 1 };
        // Two siblings, a duplicate delivery of each, and a CallModel that may come before or after them.
        const steps: (() => Promise<unknown>)[] = [
          () => runTool(deps[0]!, { ...input, callId: "c0" }),
          () => runTool(deps[1]!, { ...input, callId: "c1" }),
          () => runTool(deps[2]!, { ...input, callId: "c0" }),
          () => runTool(deps[3]!, { ...input, callId: "c1" }),
          () => callModel(deps[4]!, input),
        ];
        await Promise.all(steps.map((step) => turns.run(step)));
        const log = (await fixture.store.read(runId)) as unknown as ShownEvent[];
        expect(
          log.filter((e) => e.type === "model_response").length,
          turns.trace.join(" "),
        ).toBeLessThanOrEqual(2);
        if (log.at(-1)?.type !== "model_response")
          await callModel(harness(fixture.store, fixture.dir).deps, input);
        const final = (await fixture.store.read(runId)) as unknown as ShownEvent[];
        expectSound(fixture.dir, final);
        for (const i of [0, 1]) {
          const written = lines(fixture.dir, "notes.txt").filter((l) => l === `${id}-${i}`).length;
          expect(written).toBeLessThanOrEqual(1);
          // A duplicate delivery that finds the call started answers it as interrupted, even if it ran.
          const result = final.find((e) => e.type === "tool_result" && e.callId === `c${i}`);
          if (result?.interrupted && written === 1) counts.interruptedThoughItRan++;
        }
        counts.schedules++;
        counts.storeCalls += turns.trace.length;
      }),
      SETTINGS,
    );
  });
});
