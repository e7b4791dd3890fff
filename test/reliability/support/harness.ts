import { newRunId } from "../../../lib/adapters/ids.ts";
import { BUILT_IN_AGENTS } from "../../../lib/agents/builtIn.ts";
import { type AgentFactory, agentRegistry } from "../../../lib/agents/registry.ts";
import { Runlog } from "../../../lib/api/runlog.ts";
import type { EventStore } from "../../../lib/ports/eventStore.ts";
import type { ModelResolver } from "../../../lib/ports/model.ts";
import type { Observer } from "../../../lib/ports/runtime.ts";
import { LocalOrchestrator } from "../../../lib/runtime/local/orchestrator.ts";
import { modelResolver } from "../../../lib/runtime/models.ts";
import type { StepDeps } from "../../../lib/steps/deps.ts";
import { LogCache } from "../../../lib/steps/logCache.ts";
import { unstoredWork } from "../../../lib/steps/unstoredWork.ts";

export interface Harness {
  deps: StepDeps;
  runlog: Runlog;
}

/** What openLocal composes, around a store of the test's choosing (wrapped, faulty, gated). */
export function harness(
  store: EventStore,
  dataDir: string,
  options: {
    agents?: Readonly<Record<string, AgentFactory>>;
    models?: ModelResolver;
    observer?: Observer;
    /** @default 30000, as openLocal */
    leaseMs?: number;
  } = {},
): Harness {
  const deps: StepDeps = {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, options.agents ?? BUILT_IN_AGENTS),
    models: options.models ?? modelResolver(),
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    ...(options.observer ? { observer: options.observer } : {}),
  };
  const leaseMs = options.leaseMs ?? 30_000;
  const orchestrator = new LocalOrchestrator({ deps: () => deps, store, leaseMs, retryIntervalMs: 5 });
  return { deps, runlog: new Runlog({ ...deps, orchestrator, leaseMs, ids: { runId: newRunId } }) };
}

/** A store whose every call first awaits `before(method, args)`: a gate, a delay, a scheduler. */
export function hooked(
  store: EventStore,
  before: (method: keyof EventStore, args: unknown[]) => Promise<void> | void,
): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        await before(property as keyof EventStore, args);
        return value.apply(target, args);
      };
    },
  });
}

/** A promise opened from outside: `await gate.opened` until someone calls `gate.open()`. */
export function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
