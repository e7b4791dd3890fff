import type { NewEvent, RunEvent, RunStarted } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import type { EventStore } from "../../../lib/ports/eventStore.ts";
import type { CrashPoint, ExecutionInput, Orchestrator } from "../../../lib/ports/runtime.ts";
import type { ControlDeps } from "../../../lib/steps/deps.ts";
import { LogCache } from "../../../lib/steps/logCache.ts";
import { unstoredWork } from "../../../lib/steps/unstoredWork.ts";
import { modelsNeverCalled } from "../../support/controlDeps.ts";
import { MemoryStore } from "../../support/memoryStore.ts";

/** What a killed process leaves: nothing but this error where it died. */
export class Crash extends Error {
  constructor(readonly point: CrashPoint) {
    super(`crashed at ${point}`);
  }
}

export type ExecutionState = "none" | "running" | "ended";

/**
 * A world for one test: an in-memory store, a clock that stands still unless moved, an
 * orchestrator that records execute() and answers executionOf() from what a test says of each
 * owner, and faults that crash at a named point once. `process()` gives the deps of a new process
 * (a fresh cache): what a retry after a crash runs with.
 */
export function world<S extends EventStore = MemoryStore>(storeOf?: (clock: { now(): Date }) => S) {
  let now = Date.parse("2026-12-01T00:00:00.000Z");
  const clock = { now: () => new Date(now) };
  // The in-memory store unless a test brings another (one that lists and pages, as SQLite does).
  const store = (storeOf?.(clock) ?? Object.assign(new MemoryStore(), { now: clock.now })) as S;
  const executed: ExecutionInput[] = [];
  const executions = new Map<string, ExecutionState>();
  const orchestrator: Orchestrator = {
    execute: async (input) => {
      executed.push(input);
      executions.set(input.owner, "running");
    },
    leaseOwnerFor: ({ runId, generation }) => `${runId}:g${generation}`,
    isAlive: async (owner) => executions.get(owner) === "running",
    executionOf: async (owner) => executions.get(owner) ?? "none",
    stop: async () => false,
  };
  const crash: { at?: CrashPoint } = {};
  const reached: CrashPoint[] = [];
  const process = (): ControlDeps => ({
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: (name) => ({ name, instructions: "", tools: [], defaultModel: "scripted:test" }),
    models: modelsNeverCalled,
    clock,
    faults: {
      reached: (point) => {
        reached.push(point);
        if (crash.at === point) {
          delete crash.at;
          throw new Crash(point);
        }
      },
    },
    orchestrator,
    leaseMs: 30_000,
  });
  return {
    store,
    executed,
    executions,
    crash,
    reached,
    process,
    tick: (ms: number) => {
      now += ms;
    },
    at: () => new Date(now),
    /** Write a run's log as it was left: `events` after its `run_started`, the lease held by `holder`. */
    async seed(runId: string, events: NewEvent[] = [], holder?: { owner: string; state: ExecutionState }) {
      const first = startOf(runId, clock.now());
      await store.createRun(first, holder ? { owner: holder.owner, until: now + 30_000 } : undefined);
      let generation = 1;
      for (const [i, event] of events.entries()) {
        if (event.type === "resumed") generation = event.generation;
        await store.append(runId, stamp(event, i + 2, clock.now(), generation));
      }
      if (holder) executions.set(holder.owner, holder.state);
      return first;
    },
    async log(runId: string): Promise<RunEvent[]> {
      return store.read(runId);
    },
  };
}

export type World = ReturnType<typeof world>;

export function startOf(runId: string, at: Date): RunStarted {
  const first = stamp(
    { type: "run_started", runId, agent: "test", model: "scripted:test", input: "go" },
    1,
    at,
  );
  return first as RunStarted;
}

export const failed: NewEvent = {
  type: "model_failed",
  error: { name: "ModelUnavailableError", message: "overloaded" },
  retryable: true,
};
export const answered: NewEvent = { type: "model_response", text: "done", toolCalls: [], stop: "stop" };
export const resumed = (generation: number, more: { by?: string; input?: string } = {}): NewEvent => ({
  type: "resumed",
  generation,
  kind: "call_model",
  description: "call the model",
  by: more.by ?? "person",
  ...(more.input === undefined ? {} : { input: more.input }),
});
