import { resolve } from "node:path";
import { newRunId } from "../../adapters/ids.ts";
import { BackgroundOrchestrator } from "../../adapters/local/backgroundOrchestrator.ts";
import { crashFaults } from "../../adapters/local/envFaults.ts";
import { BUILT_IN_AGENTS } from "../../agents/builtIn.ts";
import { type AgentFactory, agentRegistry } from "../../agents/registry.ts";
import { agentToolNames } from "../../agents/toolNames.ts";
import { checkPrices, type PriceTable } from "../../core/budget.ts";
import { errorMessage } from "../../core/errors.ts";
import type { RunEvent } from "../../core/events.ts";
import type { ModelProviders } from "../../ports/model.ts";
import type { Ids } from "../../ports/runtime.ts";
import type { ControlDeps, StepDeps, StepObserver } from "../../steps/deps.ts";
import { LogCache } from "../../steps/logCache.ts";
import { retentionMs } from "../../steps/retention.ts";
import { unstoredWork } from "../../steps/unstoredWork.ts";
import { checkToolGroups, type ToolGroups } from "../../workflow/toolGroups.ts";

/** The local runtime checks tool groups as the deployment does; the CLI checks its --tool-group flags with the same rules. */
export { checkToolGroups, type ToolGroups };

import { type LifecycleListener, tellingLifecycle } from "../lifecycleDelivery.ts";
import { mcpClients } from "../mcp.ts";
import { modelResolver, openaiEndpoint } from "../models.ts";
import { type RunlogConfig, readConfig } from "../readConfig.ts";
import { connectStore, storeOptions } from "../store.ts";
import { ApprovalTimer } from "./approvalTimer.ts";
import { checkLocalOptions } from "./localOptions.ts";
import { LOCAL_LEASE_MS } from "./localReadDeps.ts";
import { LocalOrchestrator } from "./orchestrator.ts";

export interface LocalRuntimeOptions {
  /** Where runs, notes and the local store live. @default the data dir variable's, else "./.runlog" (docs/reference/configuration.md) */
  dataDir?: string;
  /** The environment to read the configuration from (docs/reference/configuration.md). @default this process's */
  env?: Readonly<Record<string, string | undefined>>;
  observer?: StepObserver;
  /** Agents by name. @default the built-in demo agent */
  agents?: Readonly<Record<string, AgentFactory>>;
  /**
   * Your own model providers by spec prefix: `{ echo: (name) => model }` serves `echo:NAME`
   * (docs/guides/your-own-model.md). @default none: the built-in `scripted:` and `openai:`
   */
  models?: ModelProviders;
  /**
   * Model prices by spec, US dollars per million tokens: `{ "openai:gpt-4.1-mini": { inputUsdPerMillion,
   * outputUsdPerMillion } }`. Needed for runs with a `maxCostUsd` limit (docs/guides/budgets.md). @default none
   */
  prices?: PriceTable;
  /** How long a lease holds without renewal. @default 30000 */
  leaseMs?: number;
  /**
   * Return from start/resume/… as soon as the execution is under way (a server's mode). A
   * background runtime also expires approvals on time itself (approvalTimer.ts). @default false
   */
  background?: boolean;
  /** Days a run that finished is kept (then it reads as not found). @default the retention variable's, else forever */
  retentionDays?: number;
  /** Told about an execution that failed in the background. @default writes to stderr */
  onBackgroundError?: (runId: string, error: unknown) => void;
  /**
   * Told each lifecycle event (runlog.RunStarted, RunPaused, RunCompleted …, docs/reference/lifecycle-events.md)
   * of the writes this process commits, in seq order per run, after the commit: what a deployment
   * publishes on its bus, derived by the same function. What it throws goes to onBackgroundError. @default none
   */
  onLifecycle?: LifecycleListener;
  /** Steps one execution does before handing the run to a new one. @default the steps-per-execution variable's, else 500 */
  stepsPerExecution?: number;
  /**
   * Tool groups, as a deployment's `toolGroups` names them (`{ payments: ["issue_refund"] }`): the
   * local state machine routes each call as the deployed one does, so both run the same definition.
   * @default none
   */
  toolGroups?: ToolGroups;
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

/** The composition root for one machine: the SQLite store in the data dir (or configured DynamoDB), in-process state machine. */
export async function openLocalRuntime(
  options: LocalRuntimeOptions = {},
  /** The configuration the caller already read (the CLI does, once); read from `options.env` without it. */
  given?: RunlogConfig,
): Promise<LocalRuntime> {
  checkLocalOptions(options);
  const config =
    given ?? readConfig(options.env, { warn: (message) => process.stderr.write(`runlog: ${message}\n`) });
  const dataDir = resolve(options.dataDir ?? config.dataDir);
  const faults = crashFaults(config.crashAt);
  const leaseMs = options.leaseMs ?? LOCAL_LEASE_MS;
  // Checked before anything opens: bad agents or groups leave nothing to close.
  const agents = agentRegistry({ dataDir }, options.agents ?? BUILT_IN_AGENTS);
  const toolGroups =
    options.toolGroups === undefined
      ? undefined
      : checkToolGroups(
          options.toolGroups,
          "toolGroups",
          agentToolNames(agents, Object.keys(options.agents ?? BUILT_IN_AGENTS)),
        );
  const retention =
    options.retentionDays === undefined
      ? retentionMs(config.retentionDays)
      : retentionMs(options.retentionDays, "retentionDays");
  const onError =
    options.onBackgroundError ??
    ((runId: string, error: unknown) =>
      process.stderr.write(`runlog: run ${runId}: ${errorMessage(error)}\n`));
  const connected = await connectStore({ ...storeOptions(config, dataDir), forRuns: true });
  const { where, close } = connected;
  const store = options.onLifecycle
    ? tellingLifecycle(connected.store, options.onLifecycle, onError)
    : connected.store;
  const retry = config.retryIntervalMs;
  const prices = options.prices === undefined ? undefined : checkPrices(options.prices);
  const steps = options.stepsPerExecution ?? config.stepsPerExecution;
  // Set once the deps exist; the observer tells it each append (a response that asks with a timeout).
  let approvals: ApprovalTimer | undefined;
  const observer = options.background
    ? tellingTimer(options.observer, (event) => approvals?.appended(event))
    : options.observer;
  // One client per MCP server for every run of this runlog, started on first use, closed by close().
  const mcp = mcpClients();
  const deps: StepDeps = {
    store,
    // This process executes its runs itself: its cached log is the tail (a lost seq race re-reads).
    logs: new LogCache(store, { trustTail: true }),
    unstored: unstoredWork(),
    agents,
    models: modelResolver({
      openai: {
        ...(config.openaiApiKey === undefined ? {} : { apiKey: config.openaiApiKey }),
        ...openaiEndpoint(config),
      },
      ...(options.models === undefined ? {} : { providers: options.models }),
    }),
    clock: { now: () => new Date() },
    faults,
    mcp,
    ...(observer === undefined ? {} : { observer }),
    ...(steps === undefined ? {} : { stepsPerExecution: steps }),
    ...(retention === undefined ? {} : { retentionMs: retention }),
    ...(prices === undefined ? {} : { prices }),
    // Sub-agent calls start child runs, and a child's end resumes its parent: both control operations.
    control: () => control,
  };
  const local = new LocalOrchestrator({
    onError: (input, error) => onError(input.runId, error),
    deps: () => deps,
    store,
    leaseMs,
    ...(retry === undefined ? {} : { retryIntervalMs: retry }),
    ...(toolGroups === undefined ? {} : { toolGroups }),
  });
  const background = options.background
    ? new BackgroundOrchestrator(local, (input, e) => onError(input.runId, e))
    : undefined;
  const orchestrator = background ?? local;
  const control = {
    ...deps,
    orchestrator,
    leaseMs,
    ids: { runId: newRunId },
    ...(config.maxRunningPerOwner === undefined ? {} : { maxRunningPerOwner: config.maxRunningPerOwner }),
  };
  if (background) {
    approvals = new ApprovalTimer(control, (error) =>
      process.stderr.write(`runlog: expiring approvals: ${errorMessage(error)}\n`),
    );
    approvals.start();
  }
  return {
    deps: control,
    dataDir,
    where,
    close: async () => {
      await approvals?.close();
      await background?.drain();
      // After the executions: a tool call under way finishes before its server goes.
      await mcp.close();
      await close();
    },
  };
}

/** The caller's observer (its other hooks as they are), and each append told to `appended` too. */
function tellingTimer(observer: StepObserver | undefined, appended: (event: RunEvent) => void): StepObserver {
  const both: StepObserver = Object.create(observer ?? null);
  both.appended = (runId, event) => {
    observer?.appended(runId, event);
    appended(event);
  };
  return both;
}
