import { afterAll, describe, expect, it } from "vitest";
import { cleanup, script, tempDataDir } from "../support/cli.ts";
import { expectSound } from "./support/checks.ts";
import {
  ControlPlayer,
  comparable,
  describeCommand,
  expectKept,
  inputCount,
  type Play,
  resumedCount,
} from "./support/controlDrive.ts";
import { type ControlOperation, OPERATIONS, RUN } from "./support/controlOperations.ts";
import { tally } from "./support/tally.ts";

/**
 * Every control operation (run, resume, send, fork, approve, reject, sweep, handoff) crashed at
 * each of its crash points, through the real CLI, then the same command run again and the run
 * driven to its end; and, for those that take an idempotency key (send, fork, approve, reject),
 * the request completed, its answer lost and the request sent again. Each case is checked against the same story played without a crash in a
 * fresh data dir (the reference): a retried request completes what the crashed one began, at no
 * extra generation, with its input applied once and no tool run twice.
 */
const plays: Play[] = [];
const scripts = tempDataDir("control-scripts");

afterAll(() => {
  const sum = (key: "spawns" | "crashes") => plays.reduce((total, play) => total + play[key], 0);
  tally("control matrix", {
    cases: plays.length,
    operations: OPERATIONS.length,
    processes: sum("spawns"),
    crashes: sum("crashes"),
    casesNeedingMoreCommands: plays.filter((play) => play.extraCommands.length > 0).length,
  });
});

/** The story played once without a crash, in a data dir of its own; the cases of one operation share it. */
function referenceOf(operation: ControlOperation, model: string): () => Promise<Play> {
  let reference: Promise<Play> | undefined;
  return () => {
    reference ??= (async () => {
      const dir = tempDataDir(`control-${operation.name}-reference`);
      try {
        return await new ControlPlayer(dir, operation, model).run();
      } finally {
        await cleanup(dir);
      }
    })();
    return reference;
  };
}

describe.concurrent.each(OPERATIONS)("control matrix: $name", (operation) => {
  const model = script(scripts, operation.name, operation.turns);
  const reference = referenceOf(operation, model);

  it.each(operation.cases.map((c) => ({ ...c, command: describeCommand(operation.requests[c.request]!) })))(
    "crash `$command` at $crashAt, retry it: as if it never crashed",
    async (crash) => {
      const expected = await reference();
      // The story itself must need nothing after its requests, or the comparison proves little.
      expect(expected.extraCommands, "the reference needed more commands").toEqual([]);
      const dir = tempDataDir(`control-${operation.name}-${crash.crashAt.replace(/\W/g, "-")}`);
      let play: Play;
      try {
        play = await new ControlPlayer(dir, operation, model).run(crash);
      } finally {
        await cleanup(dir);
      }
      plays.push(play);

      // 1. The retried request (and every request after it) answers as the uncrashed one did.
      expect(play.answers, "the requests' exit codes and --json answers").toEqual(expected.answers);
      // 2. One generation per request: no further resume was needed, and none was written.
      expect(play.extraCommands, "commands needed after the story").toEqual([]);
      expect(resumedCount(play.final), "`resumed` events").toBe(resumedCount(expected.final));
      // 3. Each input applied exactly once.
      for (const text of operation.inputs) {
        expect(inputCount(play.final, text), `input ${JSON.stringify(text)}`).toBe(1);
      }
      // 4. No tool run twice: the same side effects as the uncrashed story, each once.
      expectSound(dir, play.final);
      expect(play.notes.toSorted(), "notes.txt").toEqual(expected.notes.toSorted());
      expect(play.outbox.toSorted(), "outbox.txt").toEqual(expected.outbox.toSorted());
      // 5. Nothing rewritten, and the head agrees with the log.
      const seen = (runId: string) => play.snapshots.filter((s) => s.runId === runId).map((s) => s.log);
      expectKept(seen(operation.finalRun ?? RUN), play.final);
      if (operation.finalRun !== undefined) expectKept(seen(RUN), play.parent);
      expect(play.head).toEqual({ ...expected.head, lastSeq: play.final.length });
      // 6. The whole log, event by event, is the uncrashed one (times aside).
      const wanted = crash.expectedLog?.(expected.final) ?? expected.final;
      expect(comparable(play.final)).toEqual(comparable(wanted));
      if (operation.finalRun !== undefined) {
        expect(comparable(play.parent), "the forked run is unchanged").toEqual(comparable(expected.parent));
      }
    },
  );
});
