import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { SFNClient } from "@aws-sdk/client-sfn";
import { DynamoEventStore } from "../../adapters/dynamodb/dynamoEventStore.ts";
import { newRunId } from "../../adapters/ids.ts";
import { SfnOrchestrator } from "../../adapters/stepfunctions/index.ts";
import type { PriceTable } from "../../core/budget.ts";
import type { ModelResolver } from "../../ports/model.ts";
import type { Ids } from "../../ports/runtime.ts";
import type { AgentRegistry } from "../../ports/tool.ts";
import type { ControlDeps, StepDeps } from "../../steps/deps.ts";
import { LogCache } from "../../steps/logCache.ts";
import { unstoredWork } from "../../steps/unstoredWork.ts";
import { mcpClients } from "../mcp.ts";

/** What step deps over a deployed table are made of; the clients are built (and traced) by the caller. */
export interface TableStepOptions {
  client: DynamoDBClient;
  tableName: string;
  agents: AgentRegistry;
  models: ModelResolver;
  stepsPerExecution?: number;
  /** The function's timeout when the deployment sized it (config.stepTimeoutSeconds). @default the task's own */
  stepTimeoutSeconds?: number;
  retentionMs?: number;
  /** The status index's shards on this table (the stack's `statusShards`). @default 8 */
  statusShards?: number;
  /** Model prices by spec, for runs with a `maxCostUsd` limit (the agents module's `prices`). @default none */
  prices?: PriceTable;
}

/**
 * The step deps of a deployment: its table through the DynamoDB store, a log cache that does
 * not trust its tail (other processes write the same runs), the wall clock. The one composition
 * the Lambda functions (runtime/aws/handlerDeps.ts) and `runlog serve --table` share.
 */
export function tableStepDeps(options: TableStepOptions): StepDeps {
  const store = new DynamoEventStore({
    client: options.client,
    tableName: options.tableName,
    ...(options.statusShards === undefined ? {} : { statusShards: options.statusShards }),
  });
  return {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: options.agents,
    models: options.models,
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    // Made once per cold start and kept while the container is warm: its runs share one client per server.
    mcp: mcpClients(),
    ...(options.stepsPerExecution === undefined ? {} : { stepsPerExecution: options.stepsPerExecution }),
    ...(options.retentionMs === undefined ? {} : { retentionMs: options.retentionMs }),
    ...(options.stepTimeoutSeconds === undefined ? {} : { stepTimeoutSeconds: options.stepTimeoutSeconds }),
    ...(options.prices === undefined ? {} : { prices: options.prices }),
  };
}

/** How control deps start executions: the deployment's state machine, and its lease time (the functions are given it; see leaseMsFor). */
export interface StateMachineOptions {
  /** The client, or a function that makes it on first use (see SfnOrchestratorOptions.client). */
  client: SFNClient | (() => Promise<SFNClient>);
  stateMachineArn: string;
  leaseMs: number;
  /** Runs one owner may have running at once (config.maxRunningPerOwner). @default no cap */
  maxRunningPerOwner?: number;
}

/** Control deps (start, resume, send, fork, decide, cancel) that start executions of a deployed state machine. */
export function stateMachineControlDeps(
  steps: StepDeps,
  options: StateMachineOptions,
): ControlDeps & { ids: Ids } {
  const orchestrator = new SfnOrchestrator({
    client: options.client,
    stateMachineArn: options.stateMachineArn,
  });
  const cap = options.maxRunningPerOwner;
  return {
    ...steps,
    orchestrator,
    leaseMs: options.leaseMs,
    ids: { runId: newRunId },
    ...(cap === undefined ? {} : { maxRunningPerOwner: cap }),
  };
}
