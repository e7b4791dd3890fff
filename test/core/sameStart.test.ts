import { describe, expect, it } from "vitest";
import { IdTakenError } from "../../lib/core/errors.ts";
import type { RunStarted } from "../../lib/core/events.ts";
import { assertSameStart, startDifferences } from "../../lib/core/sameStart.ts";

const start = (extra: Partial<RunStarted> = {}): RunStarted => ({
  v: 1,
  seq: 1,
  at: "2026-11-30T00:00:00.000Z",
  type: "run_started",
  runId: "r",
  agent: "demo",
  model: "scripted:demo",
  input: "hello",
  ...extra,
});

describe("startDifferences", () => {
  it.each<[string, Partial<RunStarted>, string[]]>([
    ["the same start", {}, []],
    ["another input", { input: "bye" }, ['input "hello", not "bye"']],
    ["another model", { model: "openai:x" }, ["model scripted:demo, not openai:x"]],
    ["another agent", { agent: "other" }, ["agent demo, not other"]],
    ["a fork", { parent: { runId: "p", seq: 2 } }, ["started fresh, not forked from p at seq 2"]],
    ["a later moment only", { at: "2027-01-01T00:00:00.000Z" }, []],
  ])("%s", (_, wanted, differences) => {
    expect(startDifferences(start(wanted), start())).toEqual(differences);
  });

  it("a long input is shortened by whole characters", () => {
    const long = `${"ab".repeat(19)}x😀😀`;
    expect(startDifferences(start({ input: long }), start())).toEqual([
      `input "hello", not "${"ab".repeat(19)}x…"`,
    ]);
  });

  it("refuses with an IdTakenError carrying the id and what differs", () => {
    const refused = (() => {
      try {
        assertSameStart(start({ input: "bye" }), start());
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(IdTakenError);
    expect(refused).toMatchObject({ id: "r", differences: ['input "hello", not "bye"'] });
  });
});
