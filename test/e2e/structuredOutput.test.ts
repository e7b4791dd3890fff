import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import {
  defineAgent,
  InvalidInputError,
  type LifecycleEvent,
  type Model,
  type ModelRequest,
  type OutputOf,
} from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { cleanup, events, ROOT, runlog, runlogJson, script, tempDataDir } from "../support/cli.ts";

const Weather = z.object({ city: z.string(), celsius: z.number() });

const forecaster = defineAgent({
  name: "forecaster",
  instructions: "Say the weather as JSON.",
  model: "scripted:unused",
  output: Weather,
});

const VALID = '{"city":"Lisbon","celsius":21}';

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function run(turns: string[], agent = forecaster) {
  const lifecycle: LifecycleEvent[] = [];
  opened = await createTestRunlog({
    agents: { forecaster: agent },
    script: turns.map((text) => ({ text })),
    onLifecycle: (event) => {
      lifecycle.push(event);
    },
  });
  const result = await opened.runlog.start<OutputOf<typeof forecaster>>({
    agent: "forecaster",
    input: "Weather in Lisbon?",
  });
  return { result, log: await opened.events(result.runId), lifecycle };
}

describe("an agent with an output schema, through the library on the scripted model", () => {
  it("completes with the parsed value as its output when the first answer fits", async () => {
    const { result, log, lifecycle } = await run([VALID]);
    expect(result).toMatchObject({ status: "completed", output: { city: "Lisbon", celsius: 21 } });
    // Typed: OutputOf<typeof forecaster> is the schema's output.
    const celsius: number | undefined = result.output?.celsius;
    expect(celsius).toBe(21);
    expect(log.some((e) => e.type === "output_rejected")).toBe(false);
    expect(log.at(-1)).toMatchObject({ type: "model_response", stop: "stop", output: { city: "Lisbon" } });
    expect(lifecycle.at(-1)).toMatchObject({ type: "runlog.RunCompleted", status: "completed" });
  });

  it("gives the value the schema gave, not the JSON as written (unknown keys stripped)", async () => {
    const { result } = await run(['```json\n{"city":"Porto","celsius":18,"note":"x"}\n```']);
    expect(result.output).toEqual({ city: "Porto", celsius: 18 });
  });

  it("sends a rejected answer back with its problems once, then completes with the valid one", async () => {
    const { result, log, lifecycle } = await run(['{"city":"Lisbon"}', VALID]);
    expect(result).toMatchObject({ status: "completed", output: { city: "Lisbon", celsius: 21 } });
    const rejected = log.filter((e) => e.type === "output_rejected");
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({
      text: '{"city":"Lisbon"}',
      attempt: 1,
      retry: true,
      problems: expect.stringContaining("celsius"),
    });
    expect(log.map((e) => e.type)).toEqual(["run_started", "output_rejected", "model_response"]);
    // The rejection went on: no lifecycle event told of it.
    expect(lifecycle.map((e) => e.type)).toEqual(["runlog.RunStarted", "runlog.RunCompleted"]);
  });

  it("ends invalid_output after the default two retries, the last text kept", async () => {
    const { result, log, lifecycle } = await run(["sunny", '{"city":1}', "still not it", VALID]);
    expect(result.status).toBe("invalid_output");
    expect(result.output).toBeNull();
    expect(result.invalidOutput).toEqual({
      text: "still not it",
      problems: expect.stringContaining("not JSON"),
    });
    const rejected = log.filter((e) => e.type === "output_rejected");
    expect(rejected.map((e) => [e.attempt, e.retry])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(log.some((e) => e.type === "model_response")).toBe(false);
    expect(lifecycle.at(-1)).toMatchObject({
      type: "runlog.RunFailed",
      reason: "invalid_output",
      status: "invalid_output",
      retryable: false,
    });
    expect(await opened!.runlog.resumePoint(result.runId)).toMatchObject({
      resumable: false,
      reason: "invalid_output",
    });
  });

  it("honours outputRetries: 0 (the first rejection ends the run)", async () => {
    const strict = defineAgent({
      name: "forecaster",
      instructions: "JSON.",
      model: "scripted:unused",
      output: Weather,
      outputRetries: 0,
    });
    const { result, log } = await run(["nope", VALID], strict);
    expect(result).toMatchObject({ status: "invalid_output", invalidOutput: { text: "nope" } });
    expect(log.filter((e) => e.type === "output_rejected")).toHaveLength(1);
  });

  it("tells a model of the user's own the schema wanted, and the problems after a rejection", async () => {
    const requests: ModelRequest[] = [];
    const mine = (): Model => ({
      spec: "mine:x",
      async call(request) {
        requests.push(request);
        return { text: requests.length === 1 ? "[]" : VALID, toolCalls: [], stop: "stop" };
      },
    });
    const agent = defineAgent({
      name: "forecaster",
      instructions: "JSON.",
      model: "mine:x",
      output: Weather,
    });
    opened = await createTestRunlog({ agents: { forecaster: agent }, models: { mine } });
    const result = await opened.runlog.start({ agent: "forecaster", input: "Lisbon?" });
    expect(result.status).toBe("completed");
    expect(requests[0]?.output).toEqual({
      name: "forecaster",
      schema: expect.objectContaining({
        type: "object",
        properties: { city: { type: "string" }, celsius: { type: "number" } },
        required: ["city", "celsius"],
      }),
    });
    expect(requests[1]?.messages.slice(-2)).toEqual([
      { role: "assistant", content: "[]", toolCalls: [] },
      { role: "user", content: expect.stringContaining("Problems: answer: Invalid input: expected object") },
    ]);
  });

  it("refuses, where the agent is defined, a schema with no JSON Schema and a bad outputRetries", () => {
    const base = { name: "a", instructions: "", model: "scripted:x" };
    expect(() => defineAgent({ ...base, output: z.date() })).toThrow(InvalidInputError);
    expect(() => defineAgent({ ...base, output: z.date() })).toThrow(/agent "a": output cannot be sent/);
    expect(() => defineAgent({ ...base, output: Weather, outputRetries: -1 })).toThrow(
      /outputRetries must be a whole number from 0 to 10, got -1/,
    );
    expect(() => defineAgent({ ...base, outputRetries: 1 })).toThrow(
      /outputRetries is set but output is not/,
    );
  });
});

// A crash between writing a rejection and calling the model again, on the CLI (killed, exit 137).
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
const zodUrl = pathToFileURL(join(ROOT, "node_modules", "zod", "index.js")).href;
const MODULE = `
import { defineAgent } from "${runlogUrl}";
import { z } from "${zodUrl}";

export const agents = {
  forecaster: defineAgent({
    name: "forecaster",
    instructions: "Say the weather as JSON.",
    model: "scripted:unused",
    output: z.object({ city: z.string(), celsius: z.number() }),
  }),
};
`;

describe("a crash after output_rejected is written", () => {
  const dir = tempDataDir("structured-crash");
  const modulePath = join(dir, "agents.ts");
  writeFileSync(modulePath, MODULE);
  afterAll(() => cleanup(dir));

  it.each([
    ["model:after-append", "right after the rejection is written"],
    ["model:after-call@2", "after the model answered again, before that answer is written"],
  ])("at %s (%s): resume calls the model again and converges", async (crashAt) => {
    const runId = `r-${crashAt.replace(/\W/g, "-")}`;
    const model = script(dir, runId, [{ text: "sunny" }, { text: VALID }]);
    const args = ["--agents", modulePath];
    const crashed = await runlog(
      dir,
      ["run", "--agent", "forecaster", "--run-id", runId, "--model", model, "go", ...args],
      {
        RUNLOG_CRASH_AT: crashAt,
      },
    );
    expect(crashed.code, crashed.stderr).toBe(137);
    const before = await events(dir, runId);
    expect(before.at(-1)).toMatchObject({ type: "output_rejected", attempt: 1, retry: true });

    const point = await runlogJson(dir, ["resume-point", runId, ...args]);
    expect(point.json).toMatchObject({ resumable: true, kind: "call_model" });

    const resumed = await runlogJson(dir, ["resume", runId, ...args]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json).toMatchObject({ status: "completed", output: { city: "Lisbon", celsius: 21 } });
    const after = await events(dir, runId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.filter((e) => e.type === "output_rejected")).toHaveLength(1);
    expect(after.at(-1)).toMatchObject({ type: "model_response", output: { city: "Lisbon", celsius: 21 } });
  });
});
