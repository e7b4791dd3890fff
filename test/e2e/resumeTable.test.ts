import { afterAll, describe, expect, it } from "vitest";
import { stamp } from "../../lib/core/storedEvents.ts";
import {
  cleanup,
  events,
  runlog,
  runlogJson,
  script,
  storeEnv,
  tempDataDir,
  testEnv,
} from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

const dir = tempDataDir("resume-table");
afterAll(() => cleanup(dir));

type Point = { resumable: boolean; kind?: string; reason?: string; seq?: number };
const point = async (runId: string) => (await runlogJson<Point>(dir, ["resume-point", runId])).json;
const DONE = { text: "Done", stop: "stop" };
const NOTE = { toolCalls: [{ name: "write_note", arguments: { text: "remember" } }] };

/** Every row of the resume table (docs/concepts/resume-table.md), reached through the real CLI, then resumed where it can be. */
describe("the resume table end to end through the CLI", () => {
  it.each([
    ["a user message with no answer", [DONE], "model:before", "call_model"],
    ["tool results, all there", [NOTE, DONE], "model:before@2", "call_model"],
    ["tool calls never started", [NOTE, DONE], "model:after-append", "run_tools"],
    ["a tool call started with no result", [NOTE, DONE], "tool:after-start", "recover_tools"],
  ])("%s: crash, then %s", async (_, turns, crashAt, kind) => {
    const runId = `row-${crashAt.replace(/[^a-z0-9]/g, "-")}`;
    const model = script(dir, runId, turns);
    const crashed = await runlog(dir, ["run", "--run-id", runId, "--model", model, "go"], {
      RUNLOG_CRASH_AT: crashAt,
    });
    expect(crashed.code).toBe(137);
    expect(await point(runId)).toMatchObject({ resumable: true, kind });
    const resumed = await runlogJson(dir, ["resume", runId]);
    expect(resumed.json).toMatchObject({ runId, status: "completed", output: "Done" });
    expect(resumed.code).toBe(0);
    expect(await point(runId)).toMatchObject({ resumable: false, reason: "completed" });
  });

  it("a resumed marker with no answer after it: call_model", async () => {
    const model = script(dir, "marker", [DONE]);
    await runlog(dir, ["run", "--run-id", "marker", "--model", model, "go"], {
      RUNLOG_CRASH_AT: "model:before",
    });
    // With a model named, the resume asks for something new: a generation of its own (a plain
    // resume would complete the first generation, which never called the model).
    const again = await runlog(dir, ["resume", "marker", "--model", model], {
      RUNLOG_CRASH_AT: "model:before",
    });
    expect(again.code).toBe(137);
    const log = await events(dir, "marker");
    expect(log.at(-1)).toMatchObject({ type: "resumed", generation: 2 });
    expect(await point("marker")).toMatchObject({ resumable: true, kind: "call_model" });
    expect((await runlogJson(dir, ["resume", "marker"])).json).toMatchObject({ status: "completed" });
  });

  it("a recorded model failure is continued in place, same run id", async () => {
    const model = script(dir, "failure", [{ error: "connection" }, DONE]);
    const failed = await runlogJson(dir, ["run", "--run-id", "failure", "--model", model, "go"]);
    expect(failed.code).toBe(1);
    expect(failed.json).toMatchObject({ runId: "failure", status: "failed", output: null });
    expect((await events(dir, "failure")).map((e) => e.type)).toEqual(["run_started", "model_failed"]);
    expect(await point("failure")).toMatchObject({ resumable: true, kind: "call_model" });
    const resumed = await runlogJson(dir, ["resume", "failure"]);
    expect(resumed.json).toMatchObject({ runId: "failure", status: "completed", output: "Done" });
  });

  it.each([
    // A cut-off response is asked for again: the answer is the new one alone.
    ["a cut-off response", { text: "cut", stop: "interrupted" }, "retry_response", "Done"],
    // A response at the limit is continued: the answer is its text and the continuation's.
    [
      "a response at the output limit",
      { text: "partial", stop: "max_output" },
      "continue_response",
      "partialDone",
    ],
  ])("%s rests as interrupted, then %s completes it", async (_, turn, kind, output) => {
    const runId = `row-${kind}`;
    const first = await runlogJson(dir, [
      "run",
      "--run-id",
      runId,
      "--model",
      script(dir, runId, [turn, DONE]),
      "go",
    ]);
    expect(first.json).toMatchObject({ status: "interrupted" });
    expect(first.code).toBe(1);
    expect(await point(runId)).toMatchObject({ resumable: true, kind });
    expect((await runlogJson(dir, ["resume", runId])).json).toMatchObject({ status: "completed", output });
    const log = await events(dir, runId);
    expect(log.filter((e) => e.type === "model_response").map((e) => e.text)).toEqual([turn.text, "Done"]);
  });

  it.each([
    ["a final answer", DONE, "completed", 0],
    ["a refusal", { text: "no", stop: "refusal" }, "refused", 1],
    ["a full context window", { stop: "context_full" }, "context_full", 1],
    ["an unknown stop", { text: "?", stop: "pause_turn_2" }, "unknown_stop", 1],
  ])("%s is not resumable: %s", async (_, turn, reason, exit) => {
    const runId = `row-${reason}`;
    const first = await runlogJson(dir, [
      "run",
      "--run-id",
      runId,
      "--model",
      script(dir, runId, [turn]),
      "go",
    ]);
    expect(first.json).toMatchObject({ status: reason });
    expect(first.code).toBe(exit);
    expect(await point(runId)).toMatchObject({ resumable: false, reason });
    const resumed = await runlogJson(dir, ["resume", runId]);
    expect(resumed.code).toBe(exit);
    expect(resumed.json).toMatchObject({ status: reason });
    expect(await events(dir, runId)).toHaveLength(2);
  });

  it("a tool result that answers no call is malformed, named by its seq, and left as it is", async () => {
    const runId = "row-malformed";
    await runlogJson(dir, ["run", "--run-id", runId, "--model", script(dir, runId, [DONE]), "go"]);
    const { store, close } = await connectStore({ dataDir: dir, env: testEnv(storeEnv(dir)) });
    const ghost = {
      type: "tool_result",
      callId: "ghost",
      name: "get_weather",
      content: "?",
      isError: false,
    } as const;
    await store.append(runId, stamp(ghost, 3, new Date()));
    await close();
    expect(await point(runId)).toMatchObject({ resumable: false, reason: "malformed", seq: 3 });
    const resumed = await runlogJson(dir, ["resume", runId]);
    expect(resumed.code).toBe(1);
    expect(resumed.json).toMatchObject({ status: "malformed" });
    expect(await events(dir, runId)).toHaveLength(3);
  });

  it("no events: an unknown run is a clear error with exit 2", async () => {
    const result = await runlog(dir, ["resume-point", "never-ran"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("run never-ran not found");
  });
});
