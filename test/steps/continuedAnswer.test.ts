import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent } from "../../lib/index.ts";
import { createTestRunlog, type ScriptTurn, type TestRunlog } from "../../lib/testing/index.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";

// An answer the output limit cut is continued by resume (continue_response): the run's answer, and
// the value an output schema checks, are the cut responses' text and the continuation's, joined.

const plain = defineAgent({ name: "plain", instructions: "Answer.", model: "scripted:unused" });
const forecaster = defineAgent({
  name: "forecaster",
  instructions: "Say the weather as JSON.",
  model: "scripted:unused",
  output: z.object({ city: z.string(), celsius: z.number() }),
});

/** No second try: the first answer that does not fit ends the run `invalid_output`. */
const strict = defineAgent({
  name: "strict",
  instructions: "Say the weather as JSON.",
  model: "scripted:unused",
  output: z.object({ city: z.string(), celsius: z.number() }),
  outputRetries: 0,
});

const opened: TestRunlog[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

async function open(script: ScriptTurn[], dataDir?: string): Promise<TestRunlog> {
  const t = await createTestRunlog({
    agents: { plain, forecaster, strict },
    script,
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  opened.push(t);
  return t;
}

/** Start, then resume until the run stops being continued: each resume is the next turn. */
async function runThrough(t: TestRunlog, agent: string, runId: string) {
  let result: { status: string; output: unknown } = await t.runlog.start({ agent, input: "go", runId });
  while (result.status === "interrupted") result = await t.runlog.resume({ runId });
  return result;
}

describe("an answer continued past the output limit", () => {
  it("is the earlier text plus the continuation, over several cut responses, when read back later too", async () => {
    const dir = tempDataDir("continued-answer");
    try {
      const t = await open(
        [
          { text: "The answer is lo", stop: "max_output" },
          { text: "ng and ", stop: "max_output" },
          { text: "complete." },
        ],
        dir,
      );
      const result = await runThrough(t, "plain", "plain");
      expect(result).toMatchObject({ status: "completed", output: "The answer is long and complete." });
      // Each response keeps what its own call said: the model is shown each as it was.
      const texts = (await t.events("plain")).flatMap((e) => (e.type === "model_response" ? [e.text] : []));
      expect(texts).toEqual(["The answer is lo", "ng and ", "complete."]);
      await t.close();
      opened.length = 0;
      // A process that does not hold the log reads its tail back from the store.
      const later = await open([{ text: "unused" }], dir);
      expect(await later.runlog.outcome("plain")).toMatchObject({
        status: "completed",
        output: "The answer is long and complete.",
      });
    } finally {
      cleanup(dir);
    }
  });

  it("is what an output schema checks: JSON cut at the limit and continued is accepted", async () => {
    const t = await open([{ text: '{"city": "Lis', stop: "max_output" }, { text: 'bon", "celsius": 21}' }]);
    const result = await runThrough(t, "forecaster", "json");
    expect(result).toMatchObject({ status: "completed", output: { city: "Lisbon", celsius: 21 } });
    const log = await t.events("json");
    expect(log.some((e) => e.type === "output_rejected")).toBe(false);
    expect(log.at(-1)).toMatchObject({ type: "model_response", output: { city: "Lisbon", celsius: 21 } });
  });

  it("keeps the whole rejected answer when the joined text does not fit either", async () => {
    const t = await open([{ text: '{"city": "Lis', stop: "max_output" }, { text: 'bon"}' }]);
    const result = await runThrough(t, "strict", "bad");
    expect(result.status).toBe("invalid_output");
    // The event keeps what its call said; the schema was given the whole answer, and so is the caller.
    expect((await t.events("bad")).at(-1)).toMatchObject({
      type: "output_rejected",
      text: 'bon"}',
      problems: expect.stringContaining("celsius"),
    });
    expect(await t.runlog.outcome("bad")).toMatchObject({
      status: "invalid_output",
      invalidOutput: { text: '{"city": "Lisbon"}', problems: expect.stringContaining("celsius") },
    });
  });
});
