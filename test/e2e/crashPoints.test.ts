import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, notes, runlog, runlogJson, type ShownEvent, tempDataDir } from "../support/cli.ts";

type Call = { id: string; name: string };
type Point = { resumable: boolean; kind?: string; interruptedToolCalls?: Call[]; rerunToolCalls?: Call[] };

const NOTES = ["Pack sunglasses", "Book a table by the river"];

/**
 * Every crash point on the demo agent (get_weather, then two write_note calls
 * in parallel, then an answer). `@2` on tool points lands in the write_note
 * batch, the one with a side effect.
 */
const CASES: [string, string[]][] = [
  ["model:before", ["call_model"]],
  ["model:after-call", ["call_model"]],
  ["model:after-append", ["run_tools"]],
  ["model:after-append@2", ["run_tools"]],
  ["tool:after-start", ["recover_tools"]],
  ["tool:after-start@2", ["recover_tools"]],
  ["tool:after-run", ["recover_tools"]],
  ["tool:after-run@2", ["recover_tools"]],
  ["tool:after-append", ["call_model"]],
  ["tool:after-append@2", ["run_tools", "recover_tools", "call_model"]],
];

describe.each(CASES)("crash at %s on the demo agent", (crashAt, kinds) => {
  const dir = tempDataDir(`crash-${crashAt.replace(/\W/g, "-")}`);
  afterAll(() => cleanup(dir));

  it("resumes to completion without running any side effect twice", async () => {
    const crashed = await runlog(dir, ["run", "--run-id", "r", "Plan my afternoon"], {
      RUNLOG_CRASH_AT: crashAt,
    });
    expect(crashed.code, crashed.stderr).toBe(137);
    const before = await events(dir, "r");
    const notesBefore = notes(dir);

    const point = (await runlogJson<Point>(dir, ["resume-point", "r"])).json;
    expect(point.resumable).toBe(true);
    expect(kinds).toContain(point.kind);
    const interrupted = point.interruptedToolCalls ?? [];
    // A call of get_weather (idempotent) runs again; a write_note call is answered as interrupted.
    const rerun = point.rerunToolCalls ?? [];
    if (crashAt.startsWith("tool:after-start") || crashAt.startsWith("tool:after-run")) {
      expect(interrupted.length + rerun.length).toBeGreaterThan(0);
    }
    expect(rerun.every((call) => call.name === "get_weather")).toBe(true);
    expect(interrupted.every((call) => call.name === "write_note")).toBe(true);

    const resumed = await runlogJson(dir, ["resume", "r"]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json).toMatchObject({ runId: "r", status: "completed" });
    const after = await events(dir, "r");

    // The log: contiguous, the crashed prefix unchanged, every call answered exactly once.
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
    expect(after.slice(0, before.length)).toEqual(before);
    const calls = after.flatMap((e) =>
      e.type === "model_response" ? (e.toolCalls as { id: string }[]) : [],
    );
    for (const call of calls) expect(resultsFor(after, call.id), call.id).toHaveLength(1);

    // Side effects: no note twice; an interrupted write_note was answered, not run again.
    const written = notes(dir);
    expect(new Set(written).size).toBe(written.length);
    expect(written.every((note) => NOTES.includes(note))).toBe(true);
    for (const call of interrupted.filter((c) => c.name === "write_note")) {
      const [result] = resultsFor(after, call.id);
      expect(result).toMatchObject({ interrupted: true, isError: true });
      expect(startsFor(after, call.id)).toBe(1);
    }
    // A note missing before the resume was written by it exactly when its call had never started.
    const neverStarted = calls.filter(
      (c) => startsFor(before, c.id) === 0 && !resultsFor(before, c.id).length,
    );
    const writeNotes = neverStarted.filter((c) =>
      after.some((e) => e.type === "tool_result" && e.callId === c.id && e.name === "write_note"),
    );
    expect(written.length).toBe(notesBefore.length + writeNotes.length);

    expect((await runlogJson(dir, ["resume-point", "r"])).json).toMatchObject({
      resumable: false,
      reason: "completed",
    });
  });
});

function resultsFor(log: ShownEvent[], callId: string): ShownEvent[] {
  return log.filter((e) => e.type === "tool_result" && e.callId === callId);
}

function startsFor(log: ShownEvent[], callId: string): number {
  return log.filter((e) => e.type === "tool_started" && e.callId === callId).length;
}
