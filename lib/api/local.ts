import { resolve } from "node:path";
import { newRunId } from "../adapters/ids.ts";
import { BackgroundOrchestrator } from "../adapters/local/backgroundOrchestrator.ts";
import { crashFaults } from "../adapters/local/envFaults.ts";
import { LocalOrchestrator } from "../adapters/local/localOrchestrator.ts";
import { modelResolver } from "../adapters/models.ts";
import { connectStore } from "../adapters/store.ts";
import { type AgentFactory, agentRegistry, BUILT_IN_AGENTS } from "../agents/registry.ts";
import { errorMessage } from "../core/errors.ts";
import type { Observer } from "../ports/runtime.ts";
import { type RunlogConfig, readConfig } from "../runtime/config.ts";
import { storeOptions } from "../runtime/store.ts";
import type { StepDeps, StepObserver } from "../steps/deps.ts";
import { LogCache } from "../steps/logCache.ts";
import { retentionMs } from "../steps/retention.ts";
import { LiveFeed } from "./liveFeed.ts";
import { Runlog } from "./runlog.ts";

export interface LocalOptions {
  /** Where runs, notes and the local store live. @default the data dir variable's, else "./.runlog" (docs/reference/configuration.md) */
  dataDir?: string;
  /** The environment to read the configuration from (docs/reference/configuration.md). @default this process's */
  env?: NodeJS.ProcessEnv;
  observer?: Observer;
  /** Agents by name. @default the built-in demo agent */
  agents?: Readonly<Record<string, AgentFactory>>;
  /** How long a lease holds without renewal. @default 30000 */
  leaseMs?: number;
  /** Return from start/resume/… as soon as the execution is under way (a server's mode). @default false */
  background?: boolean;
  /** Days a run that finished is kept (then it reads as not found). @default the retention variable's, else forever */
  retentionDays?: number;
  /** Told about an execution that failed in the background. @default writes to stderr */
  onBackgroundError?: (runId: string, error: unknown) => void;
  /** Steps one execution does before handing the run to a new one. @default the steps-per-execution variable's, else 500 */
  stepsPerExecution?: number;
}

export interface LocalRunlog {
  runlog: Runlog;
  dataDir: string;
  /** Where the events are stored, in words. */
  where: string;
  /** This process's runs as they happen: events as appended, model text as it streams (createApp's `live`). */
  live: LiveFeed;
  /** Wait for background executions, then disconnect. */
  close(): Promise<void>;
}

/** The composition root for one machine: the SQLite store in the data dir (or configured DynamoDB), in-process state machine. */
export async function openLocal(
  options: LocalOptions = {},
  /** The configuration the caller already read (the CLI does, once); read from `options.env` without it. */
  given?: RunlogConfig,
): Promise<LocalRunlog> {
  const config =
    given ?? readConfig(options.env, { warn: (message) => process.stderr.write(`runlog: ${message}\n`) });
  const dataDir = resolve(options.dataDir ?? config.dataDir);
  const faults = crashFaults(config.crashAt);
  const leaseMs = options.leaseMs ?? 30_000;
  const retention =
    options.retentionDays === undefined
      ? retentionMs(config.retentionDays)
      : retentionMs(options.retentionDays, "retentionDays");
  const { store, where, close } = await connectStore(storeOptions(config, dataDir));
  const retry = config.retryIntervalMs;
  const steps = options.stepsPerExecution ?? config.stepsPerExecution;
  const live = new LiveFeed();
  const deps: StepDeps = {
    store,
    // This process executes its runs itself: its cached log is the tail (a lost seq race re-reads).
    logs: new LogCache(store, { trustTail: true }),
    agents: agentRegistry({ dataDir }, options.agents ?? BUILT_IN_AGENTS),
    models: modelResolver(
      config.openaiApiKey === undefined ? {} : { openai: { apiKey: config.openaiApiKey } },
    ),
    clock: { now: () => new Date() },
    faults,
    observer: alsoTelling(live, options.observer),
    ...(steps === undefined ? {} : { stepsPerExecution: steps }),
    ...(retention === undefined ? {} : { retentionMs: retention }),
  };
  const local = new LocalOrchestrator({
    deps: () => deps,
    store,
    leaseMs,
    ...(retry === undefined ? {} : { retryIntervalMs: retry }),
  });
  const onError =
    options.onBackgroundError ??
    ((runId: string, error: unknown) =>
      process.stderr.write(`runlog: run ${runId}: ${errorMessage(error)}\n`));
  const background = options.background
    ? new BackgroundOrchestrator(local, (input, e) => onError(input.runId, e))
    : undefined;
  const orchestrator = background ?? local;
  const runlog = new Runlog({ ...deps, orchestrator, leaseMs, ids: { runId: newRunId } });
  return {
    runlog,
    dataDir,
    where,
    live,
    close: async () => {
      live.close();
      await background?.drain();
      await close();
    },
  };
}

/** The caller's observer, and the live feed told the same (after it, so a progress line comes first). */
function alsoTelling(live: LiveFeed, observer: Observer | undefined): StepObserver {
  if (!observer) return live;
  // The caller's object as prototype: its other hooks (executionEnded, lostRace…) answer as before.
  const both: StepObserver = Object.create(observer);
  both.appended = (runId, event) => {
    observer.appended(runId, event);
    live.appended(runId, event);
  };
  both.streamed = (runId, generation, delta) => {
    observer.streamed?.(runId, generation, delta);
    live.streamed(runId, generation, delta);
  };
  return both;
}
