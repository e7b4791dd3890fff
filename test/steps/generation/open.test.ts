import { describe, expect, it } from "vitest";
import type { ResumePoint } from "../../../lib/core/classify.ts";
import { LeaseHeldError, StaleError } from "../../../lib/core/errors.ts";
import type { NewEvent, RunEvent, RunStarted } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import type { CrashPoint } from "../../../lib/ports/runtime.ts";
import { openGeneration } from "../../../lib/steps/generation/open.ts";
import type { Opening, Outcome } from "../../../lib/steps/generation/opening.ts";
import {
  answered,
  Crash,
  type ExecutionState,
  failed,
  resumed,
  startOf,
  type World,
  world,
} from "./harness.ts";

const R = "r";
const cancelled: NewEvent = { type: "cancelled", by: "someone" };

/** The fork opening fork.ts builds: the parent's log after its first event, then the fork's `resumed`. */
async function forkOf(w: World, parent: string, forkId: string): Promise<Opening> {
  const events = await w.log(parent);
  const origin = events[0] as RunStarted;
  const first: RunStarted = { ...origin, runId: forkId, parent: { runId: parent, seq: events.length } };
  const generation = 2;
  const point: ResumePoint = {
    resumable: true,
    kind: "call_model",
    description: "call the model",
    unansweredToolCalls: [],
    interruptedToolCalls: [],
  };
  const opening = stamp(
    { type: "resumed", generation, kind: "call_model", description: point.description, by: "person" },
    events.length + 1,
    w.at(),
    generation,
  );
  return { kind: "fork", first, copy: [...events.slice(1), opening], generation, point };
}

const start = (w: World): Opening => ({ kind: "start", first: startOf(R, w.at()) });
const resume = (): Opening => ({ kind: "resume", runId: R, by: "person" });
const send = (): Opening => ({ kind: "send", runId: R, by: "person", input: "hi" });
const decide = (): Opening => ({ kind: "decide", runId: R });
const sweepOf = (): Opening => ({ kind: "sweep", runId: R });
const handoff = (): Opening => ({ kind: "handoff", runId: R, owner: `${R}:g1`, generation: 1 });

/** A fork made once already (its first attempt ran to the end), its opened generation now in `state`. */
async function forkedBefore(w: World, state: ExecutionState, more: NewEvent[] = []) {
  await w.seed("p", [failed]);
  await openGeneration(w.process(), await forkOf(w, "p", R));
  w.executions.set(`${R}:g2`, state);
  w.executed.length = 0;
  for (const event of more) {
    const seq = (await w.log(R)).length + 1;
    await w.store.append(R, stamp(event, seq, w.at(), 2));
  }
}

interface Row {
  name: string;
  setup: (w: World) => Promise<unknown>;
  opening: (w: World) => Opening | Promise<Opening>;
  /** The outcome's kind, or the error a refusal throws. */
  outcome: Outcome["kind"] | typeof LeaseHeldError | typeof StaleError;
  /** The generation the outcome names. */
  generation?: number;
  /** Executions started by the request. */
  executions: number;
  /** Who holds the lease afterwards. */
  holder?: string | undefined;
}

const held = (state: ExecutionState, owner = `${R}:g1`) => ({ owner, state });

// Every kind of request x every outcome it can come to.
const rows: Row[] = [
  // start
  {
    name: "start: a new run",
    setup: async () => {},
    opening: start,
    outcome: "created",
    generation: 1,
    executions: 1,
    holder: "r:g1",
  },
  {
    name: "start retried: never executed",
    setup: (w) => w.seed(R, [], held("none")),
    opening: start,
    outcome: "completed",
    generation: 1,
    executions: 1,
    holder: "r:g1",
  },
  {
    name: "start retried: executing",
    setup: (w) => w.seed(R, [], held("running")),
    opening: start,
    outcome: "in_progress",
    generation: 1,
    executions: 0,
    holder: "r:g1",
  },
  {
    name: "start retried: ran and ended without a step",
    setup: (w) => w.seed(R, [], held("ended")),
    opening: start,
    outcome: "opened",
    generation: 2,
    executions: 1,
    holder: "r:g2",
  },
  {
    name: "start retried: the run went on",
    setup: (w) => w.seed(R, [failed]),
    opening: start,
    outcome: "went_on",
    generation: 1,
    executions: 0,
    holder: undefined,
  },
  {
    name: "start retried: the run ended",
    setup: (w) => w.seed(R, [answered]),
    opening: start,
    outcome: "not_resumable",
    executions: 0,
    holder: undefined,
  },
  // fork
  {
    name: "fork: a new fork",
    setup: (w) => w.seed("p", [failed]),
    opening: (w) => forkOf(w, "p", R),
    outcome: "created",
    generation: 2,
    executions: 1,
    holder: "r:g2",
  },
  {
    name: "fork retried: never executed",
    setup: (w) => forkedBefore(w, "none"),
    opening: (w) => forkOf(w, "p", R),
    outcome: "completed",
    generation: 2,
    executions: 1,
    holder: "r:g2",
  },
  {
    name: "fork retried: executing",
    setup: (w) => forkedBefore(w, "running"),
    opening: (w) => forkOf(w, "p", R),
    outcome: "in_progress",
    generation: 2,
    executions: 0,
    holder: "r:g2",
  },
  {
    name: "fork retried: ran and ended without a step",
    setup: (w) => forkedBefore(w, "ended"),
    opening: (w) => forkOf(w, "p", R),
    outcome: "opened",
    generation: 3,
    executions: 1,
    holder: "r:g3",
  },
  {
    name: "fork retried: the fork went on",
    setup: (w) => forkedBefore(w, "ended", [failed]),
    opening: (w) => forkOf(w, "p", R),
    outcome: "went_on",
    generation: 2,
    executions: 0,
    holder: "r:g2",
  },
  {
    name: "fork retried: the fork ended",
    setup: (w) => forkedBefore(w, "ended", [answered]),
    opening: (w) => forkOf(w, "p", R),
    outcome: "not_resumable",
    executions: 0,
    holder: "r:g2",
  },
  // resume, send, decide, sweep
  ...(
    [
      ["resume", resume, {}],
      ["send", send, { input: "hi" }],
      ["decide", decide, {}],
      ["sweep", sweepOf, { by: "sweeper" }],
    ] as const
  ).flatMap(([kind, opening, carried]): Row[] => [
    {
      name: `${kind}: a run whose executor is gone`,
      setup: (w) => w.seed(R, [failed], held("ended")),
      opening,
      outcome: "opened",
      generation: 2,
      executions: 1,
      holder: "r:g2",
    },
    {
      name: `${kind} retried: its generation opened, never executed`,
      setup: (w) => w.seed(R, [failed, resumed(2, carried)], held("none", "r:g2")),
      opening,
      outcome: "completed",
      generation: 2,
      executions: 1,
      holder: "r:g2",
    },
    {
      name: `${kind} retried: its generation opened and executing`,
      setup: (w) => w.seed(R, [failed, resumed(2, carried)], held("running", "r:g2")),
      opening,
      outcome: LeaseHeldError,
      executions: 0,
      holder: "r:g2",
    },
    {
      name: `${kind}: a run being executed`,
      setup: (w) => w.seed(R, [failed], held("running")),
      opening,
      outcome: LeaseHeldError,
      executions: 0,
      holder: "r:g1",
    },
    {
      name: `${kind}: a run nothing goes on from`,
      setup: (w) => w.seed(R, [kind === "send" ? cancelled : answered]),
      opening,
      outcome: "not_resumable",
      executions: 0,
      holder: undefined,
    },
  ]),
  // handoff
  {
    name: "handoff: from the executing owner",
    setup: (w) => w.seed(R, [failed], held("running")),
    opening: handoff,
    outcome: "opened",
    generation: 2,
    executions: 1,
    holder: "r:g2",
  },
  {
    name: "handoff retried: its generation opened, never executed",
    setup: (w) => w.seed(R, [failed, resumed(2, { by: "handoff" })], held("none", "r:g2")),
    opening: handoff,
    outcome: "completed",
    generation: 2,
    executions: 1,
    holder: "r:g2",
  },
  {
    name: "handoff retried: the next generation went on",
    setup: (w) => w.seed(R, [failed, resumed(2, { by: "handoff" }), failed], held("running", "r:g2")),
    opening: handoff,
    outcome: "handed_over",
    generation: 2,
    executions: 0,
    holder: "r:g2",
  },
  {
    name: "handoff: the run ended meanwhile",
    setup: (w) => w.seed(R, [answered], held("running")),
    opening: handoff,
    outcome: "not_resumable",
    executions: 0,
    holder: "r:g1",
  },
  {
    name: "handoff: someone else resumed the run",
    setup: (w) => w.seed(R, [failed, resumed(2)], held("running", "r:g2")),
    opening: handoff,
    outcome: StaleError,
    executions: 0,
    holder: "r:g2",
  },
];

/** Each generation opened once: no two `resumed` events (or a `run_started` and one) open the same generation. */
function openedOnce(log: readonly RunEvent[]) {
  const opened = log.flatMap((event) =>
    event.type === "resumed" ? [event.generation] : event.type === "run_started" ? [1] : [],
  );
  expect(new Set(opened).size).toBe(opened.length);
}

describe("openGeneration", () => {
  it.each(rows)("$name: $outcome", async (row) => {
    const w = world();
    await row.setup(w);
    const opening = await row.opening(w);
    const deps = w.process();
    if (typeof row.outcome === "function") {
      const error = await openGeneration(deps, opening).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(row.outcome);
      // A refusal carries its facts: the run it is about.
      expect(error).toMatchObject({ runId: R });
    } else {
      const outcome = await openGeneration(deps, opening);
      expect(outcome.kind).toBe(row.outcome);
      if (row.generation !== undefined && "generation" in outcome)
        expect(outcome.generation).toBe(row.generation);
    }
    expect(w.executed).toHaveLength(row.executions);
    for (const execution of w.executed) expect(execution.owner).toBe(`${R}:g${execution.generation}`);
    expect((await w.store.getHead(R))?.lease?.owner).toBe(row.holder);
    openedOnce(await w.log(R));
  });

  it("covers every kind of request and every outcome", async () => {
    const w = world();
    const kinds = new Set(await Promise.all(rows.map(async (row) => (await row.opening(w)).kind)));
    expect([...kinds].sort()).toEqual(
      ["decide", "fork", "handoff", "resume", "send", "start", "sweep"].sort(),
    );
    const outcomes = new Set(rows.map((row) => row.outcome).filter((o) => typeof o === "string"));
    expect([...outcomes].sort()).toEqual(
      ["completed", "created", "handed_over", "in_progress", "not_resumable", "opened", "went_on"].sort(),
    );
  });

  it("a send carries its message on the `resumed` it writes, and a sweep counts an automatic resume", async () => {
    const w = world();
    await w.seed(R, [failed]);
    await openGeneration(w.process(), send());
    const last = (await w.log(R)).at(-1);
    expect(last).toMatchObject({ type: "resumed", generation: 2, input: "hi", by: "person", gen: 2 });
    await w.seed("s", [failed]);
    await openGeneration(w.process(), { kind: "sweep", runId: "s" });
    expect((await w.store.getHead("s"))?.autoResumes).toMatchObject({ count: 1 });
  });

  it("a resume asking for a model it cannot build writes nothing", async () => {
    const w = world();
    await w.seed(R, [failed]);
    const deps = {
      ...w.process(),
      models: () => {
        throw new Error("no key");
      },
    };
    await expect(openGeneration(deps, resume())).rejects.toThrow("no key");
    expect(await w.log(R)).toHaveLength(2);
    expect((await w.store.getHead(R))?.lease).toBeUndefined();
  });

  it("a handoff that finds nothing to hand over leaves the lease with the execution that handed over", async () => {
    const w = world();
    await w.seed(R, [answered], held("running"));
    const outcome = await openGeneration(w.process(), handoff());
    expect(outcome).toMatchObject({ kind: "not_resumable", classification: { reason: "completed" } });
    expect((await w.store.getHead(R))?.lease?.owner).toBe("r:g1");
  });
});

interface CrashRow {
  name: string;
  setup: (w: World) => Promise<unknown>;
  opening: (w: World) => Opening | Promise<Opening>;
  point: CrashPoint;
  /** What the retry comes to, and the generation it executes. */
  retried: Outcome["kind"];
  generation: number;
}

const moves = [
  ["resume", resume],
  ["send", send],
  ["decide", decide],
  ["sweep", sweepOf],
] as const;

// Each crash point an opening passes, then the same request again in a new process.
const crashes: CrashRow[] = [
  ...(["control:after-claim", "control:after-append", "control:before-execute"] as const).map(
    (point): CrashRow => ({
      name: "start",
      setup: async () => {},
      opening: start,
      point,
      retried: "completed",
      generation: 1,
    }),
  ),
  {
    name: "fork",
    setup: (w) => w.seed("p", [failed]),
    opening: (w) => forkOf(w, "p", R),
    point: "fork:after-copy",
    retried: "created",
    generation: 2,
  },
  ...(["control:after-claim", "control:after-append", "control:before-execute"] as const).map(
    (point): CrashRow => ({
      name: "fork",
      setup: (w) => w.seed("p", [failed]),
      opening: (w) => forkOf(w, "p", R),
      point,
      retried: "completed",
      generation: 2,
    }),
  ),
  ...moves.flatMap(([name, opening]) => [
    {
      name,
      setup: (w: World) => w.seed(R, [failed]),
      opening,
      point: "control:after-claim" as const,
      retried: "opened" as const,
      generation: 2,
    },
    {
      name,
      setup: (w: World) => w.seed(R, [failed]),
      opening,
      point: "control:after-append" as const,
      retried: "completed" as const,
      generation: 2,
    },
    {
      name,
      setup: (w: World) => w.seed(R, [failed]),
      opening,
      point: "control:before-execute" as const,
      retried: "completed" as const,
      generation: 2,
    },
  ]),
  // Completing an opened generation passes the claim and the start too.
  ...(["control:after-claim", "control:before-execute"] as const).map(
    (point): CrashRow => ({
      name: "resume completing an opened generation",
      setup: (w) => w.seed(R, [failed, resumed(2)], held("none", "r:g2")),
      opening: resume,
      point,
      retried: "completed",
      generation: 2,
    }),
  ),
  {
    name: "handoff",
    setup: (w) => w.seed(R, [failed], held("running")),
    opening: handoff,
    point: "handoff:after-claim",
    retried: "opened",
    generation: 2,
  },
  {
    name: "handoff",
    setup: (w) => w.seed(R, [failed], held("running")),
    opening: handoff,
    point: "handoff:after-append",
    retried: "completed",
    generation: 2,
  },
];

describe("openGeneration after a crash", () => {
  it.each(crashes)("$name killed at $point: the retry converges ($retried)", async (row) => {
    const w = world();
    await row.setup(w);
    w.crash.at = row.point;
    await expect(openGeneration(w.process(), await row.opening(w))).rejects.toBeInstanceOf(Crash);
    expect(w.reached).toContain(row.point);
    // The process died: its execution never began; a new process retries the same request.
    const outcome = await openGeneration(w.process(), await row.opening(w));
    expect(outcome.kind).toBe(row.retried);
    expect(outcome).toMatchObject({ generation: row.generation });
    const log = await w.log(R);
    openedOnce(log);
    expect(w.executed.filter((e) => e.runId === R)).toEqual([
      expect.objectContaining({ runId: R, generation: row.generation, owner: `${R}:g${row.generation}` }),
    ]);
    expect((await w.store.getHead(R))?.lease?.owner).toBe(`${R}:g${row.generation}`);
    // The generation executed is the one the log is at.
    const last = log.findLast((event) => event.type === "resumed");
    expect(last?.type === "resumed" ? last.generation : 1).toBe(row.generation);
  });

  it.each([
    ["start", start, ["control:after-claim", "control:after-append", "control:before-execute"]],
    ["resume", resume, ["control:after-claim", "control:after-append", "control:before-execute"]],
    ["handoff", handoff, ["handoff:after-claim", "handoff:after-append"]],
  ] as const)("%s passes its crash points in order", async (kind, opening, points) => {
    const w = world();
    if (kind !== "start") await w.seed(R, [failed], held(kind === "handoff" ? "running" : "ended"));
    await openGeneration(w.process(), opening(w));
    expect(w.reached).toEqual(points);
  });
});
