import type { PriceTable } from "../core/budget.ts";
import type { EventStore } from "../ports/eventStore.ts";
import type { McpClients } from "../ports/mcp.ts";
import type { ModelResolver } from "../ports/model.ts";
import type { Clock, Faults, Observer, Orchestrator } from "../ports/runtime.ts";
import type { AgentRegistry } from "../ports/tool.ts";
import type { LogCache } from "./logCache.ts";
import type { UnstoredWork } from "./unstoredWork.ts";

/**
 * What a step tells whoever watches it (the CLI prints appended events; on AWS they become logs
 * and metrics, see functions/observability/): besides every appended event, the things that
 * happen without an event.
 */
export interface StepObserver extends Observer {
  /** A conditional append lost the race for `seq` to another writer; the writer reads again and retries. */
  lostRace?(runId: string, seq: number): void;
  /** The sweep stopped resuming a run automatically after `resumes` resumes: it waits for a person. */
  gaveUp?(runId: string, resumes: number): void;
  /** Saving the text of a streaming response failed (lib/steps/checkpoint.ts): kept for the next save. */
  checkpointFailed?(runId: string, error: unknown): void;
}

/** Everything a step needs, passed in: steps create no clients and read no globals. */
export interface StepDeps {
  store: EventStore;
  logs: LogCache;
  /** Work this process did and could not store yet, for the step's retry here (see unstoredWork.ts). */
  unstored: UnstoredWork;
  agents: AgentRegistry;
  models: ModelResolver;
  clock: Clock;
  faults: Faults;
  observer?: StepObserver;
  /** Aborted when the execution is stopped (a cancel): model calls and tools should stop early. */
  signal?: AbortSignal;
  /** Steps (model and tool calls) one execution does before it hands over to a new one. @default STEPS_PER_EXECUTION (500) */
  stepsPerExecution?: number;
  /** This process's task timeout (its Lambda's, when a deployment sized it otherwise): a step's deadline. @default TASK_TIMEOUT_SECONDS of its task */
  stepTimeoutSeconds?: number;
  /** How long a run that came to rest in a final status is kept (see retention.ts). @default forever */
  retentionMs?: number;
  /** Model prices by spec, for runs with a `maxCostUsd` limit (lib/core/budget.ts). @default none */
  prices?: PriceTable;
  /** The MCP clients of this runlog, shared by all its runs. @default none: an agent with `mcp` cannot start */
  mcp?: McpClients;
  /**
   * The control deps a step starts, resumes and cancels other runs with: a sub-agent call's child,
   * a child's parent (lib/steps/subagents/). A function, as they and these deps refer to each
   * other. @default none: a sub-agent call is answered with an error saying so
   */
  control?: () => ControlDeps;
}

/** Deps of the operations that start executions (start, resume). */
export interface ControlDeps extends StepDeps {
  orchestrator: Orchestrator;
  /** How long a lease holds without renewal. */
  leaseMs: number;
  /** Runs one owner may have running at once; a start over it is a TooManyRunsError. @default no cap */
  maxRunningPerOwner?: number;
}

/**
 * What reading runs takes (lib/api/runReads.ts): the store and its log cache, the agents whose
 * tools a resume plan names, and the liveness check of a lease. The CLI's read commands open no
 * more (lib/runtime/local/localReadDeps.ts): no state machine, no model, no lifecycle.
 */
export type ReadDeps = Pick<ControlDeps, "store" | "logs" | "clock" | "leaseMs"> & {
  orchestrator: Pick<Orchestrator, "isAlive">;
  /**
   * The agents, or how to load them: a read needs them only for a run stopped inside a tool call
   * (its plan says which calls run again), so the CLI's reads load the built-in agents, and the
   * zod their tools are declared with, only then (lib/runtime/local/localReadDeps.ts).
   */
  agents: AgentRegistry | LazyAgents;
};

/** Agents loaded when first asked for (ReadDeps.agents). */
export interface LazyAgents {
  load(): Promise<AgentRegistry>;
}

/** Input of the steps that run inside an execution. */
export interface StepInput {
  runId: string;
  generation: number;
}
