import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteEventStore, sqliteFile } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import { RunReads } from "../../lib/api/runReads.ts";
import { IdTakenError, NotFoundError } from "../../lib/core/errors.ts";
import type { NewEvent } from "../../lib/core/events.ts";
import { decide } from "../../lib/steps/decide.ts";
import type { ControlDeps } from "../../lib/steps/deps.ts";
import { forkRun } from "../../lib/steps/fork.ts";
import { resumeRun } from "../../lib/steps/resume.ts";
import { startRun } from "../../lib/steps/start.ts";
import { sweep } from "../../lib/steps/sweep.ts";
import { Crash, failed, world as memoryWorld, type World } from "./generation/harness.ts";

// A request a process cannot carry out is refused before it writes anything: the run stays exactly
// as it was, for a process that can (the one with the run's agents and model) to go on with.

const R = "r";
/** The harness's world on a SQLite store (the local one): reads by page and the listing the sweep uses. */
const world = () =>
  memoryWorld(
    (clock) => new SqliteEventStore({ file: sqliteFile(mkdtempSync(join(tmpdir(), "refused-"))), clock }),
  );
const ids = { runId: () => "generated" };
const asking: NewEvent = {
  type: "model_response",
  text: "",
  toolCalls: [{ id: "a", name: "delete", arguments: "{}" }],
  stop: "tool_calls",
  approvals: ["a"],
};

/** A process that has none of the run's agents: a CLI without the `--agents` the run started with. */
const withoutAgents = (w: World): ControlDeps => ({
  ...w.process(),
  agents: (name) => {
    throw new NotFoundError(`unknown agent ${JSON.stringify(name)}; known agents: demo`);
  },
});

/** A process where the run's model cannot be built (a script path that does not resolve here). */
const withoutModel = (w: World): ControlDeps => ({
  ...w.process(),
  models: (spec) => {
    throw new NotFoundError(`scripted model: cannot read script ${spec}`);
  },
});

async function unchanged(w: World, runId: string, act: () => Promise<unknown>, message: RegExp) {
  const before = { log: await w.log(runId), head: await w.store.getHead(runId) };
  await expect(act()).rejects.toThrow(message);
  expect(await w.log(runId)).toEqual(before.log);
  expect(await w.store.getHead(runId)).toEqual(before.head);
  expect(w.executed).toHaveLength(0);
}

describe("a request this process cannot carry out writes nothing", () => {
  it("resume and send, when the run's agent is not loaded here", async () => {
    const w = world();
    await w.seed(R, [failed]);
    const deps = withoutAgents(w);
    await unchanged(w, R, () => resumeRun(deps, { runId: R }), /unknown agent "test"/);
    await unchanged(w, R, () => resumeRun(deps, { runId: R, input: "hello" }), /unknown agent "test"/);
    // With its agent, the same run goes on.
    expect(await resumeRun(w.process(), { runId: R, input: "hello" })).toMatchObject({ resumed: true });
  });

  it("a decision, when the run's agent is not loaded here or its model cannot be built here", async () => {
    const w = world();
    await w.seed(R, [asking]);
    const approve = { runId: R, callId: "a", approved: true, by: "ann" };
    await unchanged(w, R, () => decide(withoutAgents(w), approve), /unknown agent "test"/);
    await unchanged(w, R, () => decide(withoutModel(w), approve), /cannot read script scripted:test/);
    expect(await decide(w.process(), approve)).toMatchObject({ resumed: true, kind: "run_tools" });
  });
});

describe("the copy of a fork stopped before its run_started is no run", () => {
  async function stoppedFork(w: World): Promise<string> {
    await w.seed("p", [failed]);
    w.crash.at = "fork:after-copy";
    await expect(forkRun({ ...w.process(), ids }, { runId: "p", forkId: "f" })).rejects.toBeInstanceOf(Crash);
    expect((await w.log("f")).map((event) => event.seq)).toEqual([2, 3]);
    return "f";
  }

  it("is not found by reads, and a resume writes nothing to it (no head either)", async () => {
    const w = world();
    const f = await stoppedFork(w);
    const reads = new RunReads(w.process());
    await expect(reads.events(f)).rejects.toThrow(/run f not found/);
    await expect(reads.eventPage(f, { maxBytes: 1 << 20 })).rejects.toThrow(/run f not found/);
    await expect(reads.event(f, 2)).rejects.toThrow(/run f not found/);
    await expect(reads.resumePoint(f)).rejects.toBeInstanceOf(NotFoundError);
    await expect(resumeRun(w.process(), { runId: f })).rejects.toBeInstanceOf(NotFoundError);
    expect(await w.store.getHead(f)).toBeUndefined();
    expect((await w.log(f)).map((event) => event.seq)).toEqual([2, 3]);
  });

  it("refuses a new run under its id; the fork retried completes it", async () => {
    const w = world();
    const f = await stoppedFork(w);
    const taken = await startRun({ ...w.process(), ids }, { agent: "test", input: "x", runId: f }).catch(
      (error) => error,
    );
    expect(taken).toBeInstanceOf(IdTakenError);
    expect(taken.message).toMatch(/run id f is taken: it holds the copy of a fork .*retry that fork/);
    expect((await w.log(f)).map((event) => event.seq)).toEqual([2, 3]);
    const retried = await forkRun({ ...w.process(), ids }, { runId: "p", forkId: f });
    expect(retried.resume).toMatchObject({ resumed: true });
    const log = await w.log(f);
    expect(log[0]).toMatchObject({ type: "run_started", parent: { runId: "p" } });
    expect(log.map((event) => event.seq)).toEqual([1, 2, 3]);
  });
});

describe("a person's last decision whose resume never came", () => {
  it("is gone on with by the sweep once it is staleAfterMs old, and not before", async () => {
    const w = world();
    await w.seed(R, [asking]);
    await w.store.setStatus(R, "paused", 2);
    w.crash.at = "decide:after-append";
    const approve = { runId: R, callId: "a", approved: true, by: "ann" };
    await expect(decide(w.process(), approve)).rejects.toBeInstanceOf(Crash);
    await sweep(w.process(), { staleAfterMs: 60_000 });
    expect(w.executed).toHaveLength(0);
    w.tick(60_000);
    const report = await sweep(w.process(), { staleAfterMs: 60_000 });
    expect(report.approvals.expired).toEqual([{ runId: R, callIds: [], generation: 2 }]);
    expect(w.executed).toEqual([
      expect.objectContaining({ generation: 2, next: expect.objectContaining({ action: "tools" }) }),
    ]);
    expect((await w.log(R)).at(-1)).toMatchObject({ type: "resumed", by: "sweeper", kind: "run_tools" });
  });
});
