import { resolve } from "node:path";
import { isLocalOwnerAlive } from "../../adapters/local/processLiveness.ts";
import { type AgentFactory, agentRegistry } from "../../agents/registry.ts";
import type { AgentContext, AgentRegistry } from "../../ports/tool.ts";
import type { LazyAgents, ReadDeps } from "../../steps/deps.ts";
import { LogCache } from "../../steps/logCache.ts";
import type { RunlogConfig } from "../readConfig.ts";
import { connectStore, storeOptions } from "../store.ts";

/** How long a local lease holds without renewal, unless openLocal is told otherwise. */
export const LOCAL_LEASE_MS = 30_000;

export interface LocalReadOptions {
  /** As openLocal's. @default the configured data dir */
  dataDir?: string;
  /** The agents whose tools a resume plan names. @default the built-in demo agent */
  agents?: Readonly<Record<string, AgentFactory>>;
  /** @default LOCAL_LEASE_MS */
  leaseMs?: number;
}

export interface LocalReadDeps {
  deps: ReadDeps;
  dataDir: string;
  /** Where the events are stored, in words. */
  where: string;
  close(): Promise<void>;
}

/**
 * The composition root for reading this machine's runs, and nothing else: the store openLocal
 * would open (the SQLite file in the data dir, or the configured table), its log cache, the agents
 * and the liveness of a local lease, as the local orchestrator judges it. No state machine, model
 * adapter or lifecycle delivery is loaded: the CLI's read commands (ls, show, resume-point,
 * script) answer from this in a fresh process.
 */
export async function openLocalReadDeps(
  options: LocalReadOptions,
  config: RunlogConfig,
): Promise<LocalReadDeps> {
  const dataDir = resolve(options.dataDir ?? config.dataDir);
  const context = { dataDir };
  const agents = options.agents ? agentRegistry(context, options.agents) : builtInAgents(context);
  // A reader never makes a table: a mistyped table name is reported, not created empty.
  const { store, where, close } = await connectStore({ ...storeOptions(config, dataDir), readOnly: true });
  return {
    deps: {
      store,
      // This process executes nothing: what it has cached is only as far as the store said.
      logs: new LogCache(store),
      agents,
      clock: { now: () => new Date() },
      leaseMs: options.leaseMs ?? LOCAL_LEASE_MS,
      orchestrator: { isAlive: async (owner) => isLocalOwnerAlive(owner) },
    },
    dataDir,
    where,
    close,
  };
}

/** The built-in agents, loaded when a read first needs an agent's tools (most never do: see ReadDeps). */
function builtInAgents(context: AgentContext): LazyAgents {
  let loading: Promise<AgentRegistry> | undefined;
  return {
    load: () => {
      loading ??= import("../../agents/builtIn.ts").then(({ BUILT_IN_AGENTS }) =>
        agentRegistry(context, BUILT_IN_AGENTS),
      );
      return loading;
    },
  };
}
