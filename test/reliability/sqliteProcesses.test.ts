import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteEventStore } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import { startScript, startWorker, tempStoreFile } from "../adapters/sqlite/helpers.ts";
import {
  type CliResult,
  cleanup,
  events,
  runlog,
  runlogJson,
  type ShownEvent,
  script,
  tempDataDir,
} from "../support/cli.ts";
import { expectSound, lines } from "./support/checks.ts";
import { crashedRun, listedStatus } from "./support/runs.ts";
import { tally } from "./support/tally.ts";

/**
 * Many OS processes on one data dir, which is one SQLite file that each opens
 * in-process: one writer at a time, the others waiting on the file lock. First
 * bare store workers appending back to back (the most contention one machine
 * can make), then the real CLI: 16 runs at once, and 16 resumes of one run.
 */
const PROCESSES = 16;
const TURNS = 20;
/** Appends each store-level worker makes back to back, to keep the write lock contended throughout. */
const APPENDS = 300;
/** What a process must never report: the file lock outlasting the busy timeout. */
const LOCKED = /SQLITE_BUSY|database is locked|stayed locked/i;
/** The messages of a resumer that lost to another (docs/reference/cli.md: exit 1, naming who holds the run). */
const LOSER = /being executed by|resumed by another process|another executor claimed it first/;

const counts = {
  storeWorkers: 0,
  storeAppendsAcknowledged: 0,
  appendingProcesses: 0,
  runsCompleted: 0,
  eventsAppended: 0,
  acknowledgedSeqsChecked: 0,
  resumingProcesses: 0,
  resumeWinners: 0,
  resumeLosers: 0,
  losersThatFoundItHeld: 0,
  losersThatLostTheClaim: 0,
  barrierResumers: 0,
  barrierLosersThatLostTheClaim: 0,
  lockErrors: 0,
};
afterAll(() => tally("sqlite processes", counts));

const note = (text: string) => ({ name: "write_note", arguments: { text } });

/** The seqs a process printed as written (`HH:MM:SS.mmm  <run>  #  <seq>  <step>`), with the step's words. */
function acknowledged(result: CliResult, runId: string): { seq: number; step: string }[] {
  const line = new RegExp(`^\\S+\\s+${runId}\\s+#\\s*(\\d+)\\s+(.*)$`);
  return result.stderr.split("\n").flatMap((text) => {
    const match = line.exec(text);
    return match ? [{ seq: Number(match[1]), step: match[2]! }] : [];
  });
}

/** The event type a step line describes. */
function typeOfStep(step: string): string {
  if (step.startsWith("run started")) return "run_started";
  if (step.startsWith("model ")) return "model_response";
  if (/^tool \S+ started/.test(step)) return "tool_started";
  if (/^tool \S+ (finished|failed)/.test(step)) return "tool_result";
  return step;
}

describe(`${PROCESSES} processes appending to one store file as fast as they can`, () => {
  it("each acknowledged append is stored, every log is 1..n, and no process gives up on the lock", async () => {
    const file = tempStoreFile("hammer");
    const runIds = Array.from({ length: PROCESSES }, (_, i) => `hammer-${i}`);
    const workers = runIds.map((runId) => startWorker(file, "burst", runId, String(APPENDS)));
    await Promise.all(workers.map((w) => w.line((line) => line === "ready")));
    for (const w of workers) w.child.stdin.end("go\n");
    const exits = await Promise.all(workers.map((w) => w.exit));
    counts.storeWorkers += workers.length;
    counts.lockErrors += exits.filter((exit) => LOCKED.test(exit.stderr)).length;
    const acked = workers.map((w) =>
      w.lines.filter((line) => line !== "ready").map((line) => Number(/^acked (\d+)$/.exec(line)?.[1])),
    );
    const shown = exits.map(
      (exit, i) =>
        `${runIds[i]}: exit ${exit.code}, ${acked[i]!.length} acked; ${exit.stderr.split("\n")[0]}`,
    );
    for (const exit of exits) {
      expect(exit.stderr, shown.join("\n")).not.toMatch(LOCKED);
      expect(exit.code, exit.stderr).toBe(0);
    }

    const store = new SqliteEventStore({ file });
    try {
      for (const [i, runId] of runIds.entries()) {
        const seqs = (await store.read(runId)).map((e) => e.seq);
        expect(seqs).toEqual(Array.from({ length: APPENDS + 1 }, (_, k) => k + 1));
        expect(acked[i]).toEqual(seqs);
        counts.storeAppendsAcknowledged += acked[i]!.length;
      }
    } finally {
      await store.close();
    }
  });
});

describe(`${PROCESSES} CLI processes appending to ${PROCESSES} runs in one data dir at once`, () => {
  const dir = tempDataDir("sqlite-appenders");
  afterAll(() => cleanup(dir));

  it("every run completes with a contiguous log holding everything a process reported written", async () => {
    const ids = Array.from({ length: PROCESSES }, (_, i) => `append-${i}`);
    const models = ids.map((id) =>
      script(dir, id, [
        ...Array.from({ length: TURNS }, (_, turn) => ({ toolCalls: [note(`${id} ${turn}`)] })),
        { text: `${id} done`, stop: "stop" },
      ]),
    );
    const results = await Promise.all(
      ids.map((id, i) => runlogJson(dir, ["run", "--run-id", id, "--model", models[i]!, "go"])),
    );
    counts.appendingProcesses += results.length;
    counts.lockErrors += results.filter((r) => LOCKED.test(r.stderr)).length;

    for (const [i, id] of ids.entries()) {
      const result = results[i]!;
      expect(result.stderr).not.toMatch(LOCKED);
      expect(result.code, result.stderr).toBe(0);
      expect(result.json).toEqual({ runId: id, status: "completed", output: `${id} done` });
      counts.runsCompleted++;

      // Read back on this process's own connection, after every writer has exited.
      const log = await events(dir, id);
      expectSound(dir, log);
      expect(log).toHaveLength(1 + 3 * TURNS + 1);
      expect(log.filter((e) => e.type === "tool_result" && e.isError === false)).toHaveLength(TURNS);
      counts.eventsAppended += log.length;

      // Nothing acknowledged is lost: every step the process printed is that event, at that seq.
      const acks = acknowledged(result, id);
      expect(acks.map((a) => a.seq)).toEqual(log.map((e) => e.seq));
      for (const ack of acks) expect(log[ack.seq - 1]?.type, ack.step).toBe(typeOfStep(ack.step));
      counts.acknowledgedSeqsChecked += acks.length;

      expect(await listedStatus(dir, id)).toBe("completed");
    }
    const written = lines(dir, "notes.txt");
    expect(written).toHaveLength(PROCESSES * TURNS);
    expect(new Set(written).size).toBe(PROCESSES * TURNS);
  });
});

/**
 * The crashed run's script: two notes, then (the resumed execution, holding
 * the run) a slow turn asking for a third, then the answer. The slow turn keeps
 * the winner running while every other resumer tries.
 */
const crashedTurns = (id: string) => [
  { toolCalls: [note(`${id} a`), note(`${id} b`)] },
  { toolCalls: [note(`${id} c`)], delayMs: 10_000 },
  { text: "Done", stop: "stop" },
];

describe(`${PROCESSES} processes resuming one crashed run at once`, () => {
  const dir = tempDataDir("sqlite-resumers");
  afterAll(() => cleanup(dir));

  it.each(["tool:after-run", "tool:after-start", "model:after-append"])(
    "crashed at %s: exactly one resumes, the others exit 1 having written nothing",
    async (crashAt) => {
      const id = `race-${crashAt.replace(/\W/g, "-")}`;
      await crashedRun(dir, id, crashedTurns(id), crashAt);
      const before = await events(dir, id);

      const results = await Promise.all(
        Array.from({ length: PROCESSES }, () => runlog(dir, ["resume", id, "--json"])),
      );
      counts.resumingProcesses += results.length;
      counts.lockErrors += results.filter((r) => LOCKED.test(r.stderr)).length;
      const shown = results.map(
        (r) => `exit ${r.code}: ${r.stdout.trim()} ${r.stderr.trim().split("\n").at(-1)}`,
      );
      for (const result of results) expect(result.stderr, shown.join("\n")).not.toMatch(LOCKED);

      const winners = results.filter((r) => r.code === 0);
      expect(winners, shown.join("\n")).toHaveLength(1);
      expect(JSON.parse(winners[0]!.stdout)).toMatchObject({
        runId: id,
        status: "completed",
        output: "Done",
        resumed: true,
      });
      const losers = results.filter((r) => r !== winners[0]);
      for (const loser of losers) {
        expect(loser.code, loser.stderr).toBe(1);
        expect(loser.stderr).toMatch(LOSER);
        // A loser printed no step: it wrote no event.
        expect(acknowledged(loser, id)).toEqual([]);
        if (/being executed by/.test(loser.stderr)) counts.losersThatFoundItHeld++;
        else counts.losersThatLostTheClaim++;
      }
      counts.resumeWinners += winners.length;
      counts.resumeLosers += losers.length;

      const after = await events(dir, id);
      expect(after.slice(0, before.length)).toEqual(before);
      expectSound(dir, after);
      // One new generation; everything after the crash is the winner's, each step printed by it.
      expect(after.filter((e) => e.type === "resumed")).toEqual([
        expect.objectContaining({ seq: before.length + 1, generation: 2 }),
      ]);
      const winnerAcks = acknowledged(winners[0]!, id).map((a) => a.seq);
      expect(winnerAcks).toEqual(after.slice(before.length).map((e: ShownEvent) => e.seq));
      // Three calls, each answered once (expectSound: no note twice, and one for each call that ran).
      const answered = after.filter((e) => e.type === "tool_result").map((e) => String(e.callId));
      expect(answered.sort()).toEqual(["call_0_0", "call_0_1", "call_1_0"]);
      expect(await listedStatus(dir, id)).toBe("completed");
    },
  );

  it("released together at the claim (library processes): exactly one resumes, the others lose having written nothing", async () => {
    const id = "race-barrier";
    await crashedRun(dir, id, crashedTurns(id), "tool:after-run");
    const before = await events(dir, id);
    const worker = fileURLToPath(new URL("./support/resumeWorker.ts", import.meta.url));
    const workers = Array.from({ length: PROCESSES }, () => startScript(worker, dir, id));
    await Promise.all(workers.map((w) => w.line((line) => line === "ready")));
    for (const w of workers) w.child.stdin.end("go\n");
    const exits = await Promise.all(workers.map((w) => w.exit));
    counts.barrierResumers += workers.length;
    const outcomes = workers.map((w) => w.lines.filter((line) => line !== "ready").join(" | "));
    for (const [i, exit] of exits.entries()) expect(exit.code, `${outcomes[i]} ${exit.stderr}`).toBe(0);
    counts.lockErrors += outcomes.filter((line) => LOCKED.test(line)).length;
    for (const outcome of outcomes) expect(outcome, outcomes.join("\n")).not.toMatch(LOCKED);

    expect(
      outcomes.filter((o) => o === "won completed"),
      outcomes.join("\n"),
    ).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o !== "won completed")) {
      expect(outcome).toMatch(/^lost LeaseHeldError: /);
      expect(outcome).toMatch(LOSER);
      if (!/being executed by/.test(outcome)) counts.barrierLosersThatLostTheClaim++;
    }

    const after = await events(dir, id);
    expect(after.slice(0, before.length)).toEqual(before);
    expectSound(dir, after);
    expect(after.filter((e) => e.type === "resumed")).toEqual([
      expect.objectContaining({ seq: before.length + 1, generation: 2 }),
    ]);
    const answered = after.filter((e) => e.type === "tool_result").map((e) => String(e.callId));
    expect(answered.sort()).toEqual(["call_0_0", "call_0_1", "call_1_0"]);
    expect(await listedStatus(dir, id)).toBe("completed");
  });
});
