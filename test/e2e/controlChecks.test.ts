import { renameSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, notes, runlog, runlogJson, script, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("control-checks");
afterAll(() => cleanup(dir));

const DONE = { text: "Done", stop: "stop" };
const NOTE = { toolCalls: [{ name: "write_note", arguments: { text: "remember" } }] };

describe("a control operation checks before it writes", () => {
  it.each([
    ["a log that moved on (a tool call cut off)", "tool:after-start"],
    ["a generation opened and never executed", "model:before"],
  ])("resume of %s whose model cannot be built here writes nothing and runs no tool", async (_, crashAt) => {
    const runId = `unbuildable-${crashAt.replace(/\W/g, "-")}`;
    const model = script(dir, runId, [NOTE, DONE]);
    const crashed = await runlog(dir, ["run", "--run-id", runId, "--model", model, "go"], {
      RUNLOG_CRASH_AT: crashAt,
    });
    expect(crashed.code).toBe(137);
    const before = await events(dir, runId);
    const notesBefore = notes(dir);
    // The script the run names is gone from where it was (another machine, another directory).
    const path = model.slice("scripted:".length);
    renameSync(path, `${path}.moved`);

    const refused = await runlog(dir, ["resume", runId]);
    expect(refused.code, refused.stdout).not.toBe(0);
    expect(refused.stderr).toMatch(/\.json/);
    expect(await events(dir, runId)).toEqual(before);
    expect(notes(dir)).toEqual(notesBefore);

    // Put back, the same resume goes on from exactly there, one scripted turn at a time.
    renameSync(`${path}.moved`, path);
    const resumed = await runlogJson(dir, ["resume", runId]);
    expect(resumed.json).toMatchObject({ status: "completed", output: "Done", resumed: true });
  });
});

describe("resume --json says whether this request resumed the run", () => {
  it("the resumer says resumed with its generation; one that came after it finished says it resumed nothing", async () => {
    const model = script(dir, "late", [DONE]);
    await runlog(dir, ["run", "--run-id", "late", "--model", model, "go"], {
      RUNLOG_CRASH_AT: "model:after-call",
    });
    const first = await runlogJson(dir, ["resume", "late"]);
    expect(first.json).toEqual({
      runId: "late",
      status: "completed",
      output: "Done",
      resumed: true,
      generation: 1,
      kind: "call_model",
    });
    const late = await runlogJson(dir, ["resume", "late"]);
    expect(late.code).toBe(0);
    expect(late.json).toEqual({
      runId: "late",
      status: "completed",
      output: "Done",
      resumed: false,
      reason: "completed",
    });
  });
});
