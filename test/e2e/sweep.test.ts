import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, notes, runlog, runlogJson, script, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("sweep");
afterAll(() => cleanup(dir));

interface Report {
  examined: number;
  resumed: { runId: string }[];
  skipped: { runId: string; why: string }[];
}

describe("runlog sweep", () => {
  it("resumes a run whose process was killed, and leaves paused and completed runs alone", async () => {
    const email = script(dir, "email", [
      { toolCalls: [{ name: "send_email", arguments: { to: "a@b.c", subject: "s" } }] },
    ]);
    const paused = await runlog(dir, ["run", "--run-id", "paused", "--model", email, "email"]);
    expect(paused.code, paused.stderr).toBe(3);
    expect((await runlog(dir, ["run", "--run-id", "done", "hi"])).code).toBe(0);
    const note = script(dir, "note", [
      { toolCalls: [{ name: "write_note", arguments: { text: "only once" } }] },
      { text: "ok" },
    ]);
    const killed = await runlog(dir, ["run", "--run-id", "killed", "--model", note, "note"], {
      RUNLOG_CRASH_AT: "tool:after-run",
    });
    expect(killed.code).toBe(137);
    const pausedLog = await events(dir, "paused");
    const doneLog = await events(dir, "done");

    const swept = await runlogJson<Report>(dir, ["sweep"]);
    expect(swept.code).toBe(0);
    expect(swept.json.resumed.map((r) => r.runId)).toEqual(["killed"]);
    expect((await runlogJson(dir, ["resume-point", "killed"])).json).toMatchObject({ reason: "completed" });
    expect(notes(dir).filter((line) => line === "only once")).toHaveLength(1);
    expect(await events(dir, "paused")).toEqual(pausedLog);
    expect(await events(dir, "done")).toEqual(doneLog);

    const again = await runlogJson<Report>(dir, ["sweep"]);
    expect(again.json.resumed).toEqual([]);
  });

  it("counts a resume whose process dies in the model call, and gives up at --max-resumes", async () => {
    // Killed before its first model call: the generation opened by the start ran and died, and so
    // does every resume of it. Each sweep's resume is one of the run's resumes, spent or not.
    const crash = { RUNLOG_CRASH_AT: "model:before" };
    const started = await runlog(dir, ["run", "--run-id", "loops", "loop"], crash);
    expect(started.code, started.stderr).toBe(137);
    const codes: number[] = [];
    for (let sweep = 0; sweep < 3; sweep++) {
      codes.push((await runlog(dir, ["sweep", "--max-resumes", "1"], crash)).code);
    }
    // The first sweep resumes it (and dies with it); the second finds one resume spent and gives up.
    expect(codes).toEqual([137, 0, 0]);
    const point = await runlogJson<{ reason: string; resumable: boolean }>(dir, ["resume-point", "loops"]);
    expect(point.json.resumable).toBe(true);
    const log = await events(dir, "loops");
    expect(log.filter((event) => event.type === "given_up")).toHaveLength(1);
  });

  it("counts the completions of its own resume whose process dies before the model answers, and gives up", async () => {
    // The run is killed before its second model call; each sweep's resume (a `resumed` of the
    // sweeper's, then completions of it) dies in the same place.
    const model = script(dir, "own-loop", [
      { toolCalls: [{ name: "wait", arguments: { ms: 1 } }] },
      { text: "ok" },
    ]);
    const started = await runlog(dir, ["run", "--run-id", "own-loop", "--model", model, "wait"], {
      RUNLOG_CRASH_AT: "model:before@2",
    });
    expect(started.code, started.stderr).toBe(137);
    const crash = { RUNLOG_CRASH_AT: "model:before" };
    const codes: number[] = [];
    for (let sweep = 0; sweep < 5; sweep++) {
      codes.push((await runlog(dir, ["sweep", "--max-resumes", "2"], crash)).code);
    }
    // Sweep 1 opens a generation (1 resume); sweep 2 completes it, as a sweep retried after dying
    // before its execution would (still 1); sweep 3 finds that completion's execution died too (2).
    expect(codes).toEqual([137, 137, 137, 0, 0]);
    const log = await events(dir, "own-loop");
    expect(log.filter((event) => event.type === "resumed").map((event) => event.by)).toEqual(["sweeper"]);
    expect(log.filter((event) => event.type === "given_up")).toHaveLength(1);
  });

  it("finishes its own resume after a sweep that died before executing it, within --max-resumes 1", async () => {
    const model = script(dir, "sweep-died", [
      { toolCalls: [{ name: "wait", arguments: { ms: 1 } }] },
      { text: "ok" },
    ]);
    const started = await runlog(dir, ["run", "--run-id", "sweep-died", "--model", model, "wait"], {
      RUNLOG_CRASH_AT: "tool:after-run",
    });
    expect(started.code, started.stderr).toBe(137);
    const died = await runlog(dir, ["sweep", "--max-resumes", "1"], {
      RUNLOG_CRASH_AT: "control:before-execute",
    });
    expect(died.code).toBe(137);
    const retried = await runlogJson<Report>(dir, ["sweep", "--max-resumes", "1"]);
    expect(retried.json.resumed.map((r) => r.runId)).toEqual(["sweep-died"]);
    expect((await runlogJson(dir, ["resume-point", "sweep-died"])).json).toMatchObject({
      reason: "completed",
    });
    const log = await events(dir, "sweep-died");
    expect(log.filter((event) => event.type === "resumed").map((event) => event.by)).toEqual(["sweeper"]);
  });

  it("rejects a bad flag value with exit 2", async () => {
    const result = await runlog(dir, ["sweep", "--stale-after", "soon"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--stale-after takes a whole number/);
  });
});
