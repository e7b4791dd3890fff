import { resolve } from "node:path";
import { newRunId } from "../../adapters/ids.ts";
import { BackgroundOrchestrator } from "../../adapters/local/backgroundOrchestrator.ts";
import { faultsFromEnv } from "../../adapters/local/envFaults.ts";
import { type AgentFactory, agentRegistry, BUILT_IN_AGENTS } from "../../agents/registry.ts";
import { errorMessage, InvalidInputError } from "../../core/errors.ts";
import type { Ids } from "../../ports/runtime.ts";
import type { ControlDeps, StepDeps, StepObserver } from "../../steps/deps.ts";
import { LogCache } from "../../steps/logCache.ts";
import { RETENTION_VARIABLE, retentionMs } from "../../steps/retention.ts";
import { unstoredWork } from "../../steps/unstoredWork.ts";
import { modelResolver } from "../models.ts";
import { connectStore } from "../store.ts";
import { LocalOrchestrator } from "./orchestrator.ts";

export interface LocalRuntimeOptions {
  /** Where runs, notes and the local store live. @default "./.runlog" or $RUNLOG_DIR */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  observer?: StepObserver;
  /** Agents by name. @default the built-in demo agent */
  agents?: Readonly<Record<string, AgentFactory>>;
  /** How long a lease holds without renewal. @default 30000 */
  leaseMs?: number;
  /** Return from start/resume/… as soon as the execution is under way (a server's mode). @default false */
  background?: boolean;
  /** Days a run that finished is kept (then it reads as not found). @default $RUNLOG_RETENTION_DAYS, else forever */
  retentionDays?: number;
  /** Told about an execution that failed in the background. @default writes to stderr */
  onBackgroundError?: (runId: string, error: unknown) => void;
  /** Steps one execution does before handing the run to a new one. @default $RUNLOG_STEPS_PER_EXECUTION, else 500 */
  stepsPerExecution?: number;
}

/** One machine's runlog, wired: the control deps the Runlog facade (lib/api) takes, and where they point. */
export interface LocalRuntime {
  deps: ControlDeps & { ids: Ids };
  dataDir: string;
  /** Where the events are stored, in words. */
  where: string;
  /** Wait for background executions, then disconnect. */
  close(): Promise<void>;
}

function retryInterval(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) {
    throw new InvalidInputError(
      `RUNLOG_RETRY_INTERVAL_MS must be a whole number of milliseconds, got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

function stepsPerExecution(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const steps = Number(value);
  if (!Number.isInteger(steps) || steps < 1) {
    throw new InvalidInputError(
      `RUNLOG_STEPS_PER_EXECUTION must be a whole number of steps, 1 or more, got ${JSON.stringify(value)}`,
    );
  }
  return steps;
}

/** The composition root for one machine: the SQLite store in the data dir (or configured DynamoDB), in-process state machine. */
export async function openLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const env = options.env ?? process.env;
  const dataDir = resolve(options.dataDir ?? env.RUNLOG_DIR ?? ".runlog");
  const faults = faultsFromEnv(env.RUNLOG_CRASH_AT);
  const leaseMs = options.leaseMs ?? 30_000;
  const retention =
    options.retentionDays === undefined
      ? retentionMs(env[RETENTION_VARIABLE])
      : retentionMs(options.retentionDays, "retentionDays");
  const { store, where, close } = await connectStore({ dataDir, env });
  const retry = env.RUNLOG_RETRY_INTERVAL_MS;
  const steps = options.stepsPerExecution ?? stepsPerExecution(env.RUNLOG_STEPS_PER_EXECUTION);
  const deps: StepDeps = {
    store,
    // This process executes its runs itself: its cached log is the tail (a lost seq race re-reads).
    logs: new LogCache(store, { trustTail: true }),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, options.agents ?? BUILT_IN_AGENTS),
    models: modelResolver(),
    clock: { now: () => new Date() },
    faults,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
    ...(steps === undefined ? {} : { stepsPerExecution: steps }),
    ...(retention === undefined ? {} : { retentionMs: retention }),
  };
  const local = new LocalOrchestrator({
    deps: () => deps,
    store,
    leaseMs,
    ...(retry === undefined ? {} : { retryIntervalMs: retryInterval(retry) }),
  });
  const onError =
    options.onBackgroundError ??
    ((runId: string, error: unknown) =>
      process.stderr.write(`runlog: run ${runId}: ${errorMessage(error)}\n`));
  const background = options.background
    ? new BackgroundOrchestrator(local, (input, e) => onError(input.runId, e))
    : undefined;
  const orchestrator = background ?? local;
  return {
    deps: { ...deps, orchestrator, leaseMs, ids: { runId: newRunId } },
    dataDir,
    where,
    close: async () => {
      await background?.drain();
      await close();
    },
  };
}
