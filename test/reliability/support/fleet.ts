import { SFNClient } from "@aws-sdk/client-sfn";
import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { SfnOrchestrator } from "../../../lib/adapters/stepfunctions/sfnOrchestrator.ts";
import { BUILT_IN_AGENTS } from "../../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../../lib/agents/registry.ts";
import { modelResolver } from "../../../lib/runtime/models.ts";
import type { ControlDeps } from "../../../lib/steps/deps.ts";
import { LogCache } from "../../../lib/steps/logCache.ts";
import { unstoredWork } from "../../../lib/steps/unstoredWork.ts";
import { type InProcessDynalite, startDynalite } from "../../support/dynalite.ts";
import { connectDynamo } from "../../support/store.ts";

/** The state machine the fleet simulations start executions of (Step Functions is mocked at the SDK). */
export const STATE_MACHINE_ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:runlog";
export const HOUR = 3_600_000;

/**
 * A deployment's control deps over a DynamoDB table on dynalite, for the fleet simulations
 * (sweepAtScale, redriveAtScale): every DynamoDB request is counted by command in `requests`,
 * which the simulations' mocked Step Functions calls count into too.
 */
export interface Fleet {
  deps: ControlDeps;
  orchestrator: SfnOrchestrator;
  /** A store to seed runs with, on the same table. */
  table: { client: ConstructorParameters<typeof DynamoEventStore>[0]["client"]; tableName: string };
  requests: Map<string, number>;
  count(name: string): void;
  stop(): Promise<void>;
}

export async function startFleet(dataDir: string): Promise<Fleet> {
  const server: InProcessDynalite = await startDynalite();
  const { client, tableName } = await connectDynamo({ env: server.env() });
  const requests = new Map<string, number>();
  const count = (name: string) => requests.set(name, (requests.get(name) ?? 0) + 1);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      count(String(context.commandName));
      return next(args);
    },
    { step: "initialize", name: "countRequests" },
  );
  const orchestrator = new SfnOrchestrator({
    client: new SFNClient({ region: "us-east-1" }),
    stateMachineArn: STATE_MACHINE_ARN,
  });
  const store = new DynamoEventStore({ client, tableName });
  const deps: ControlDeps = {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir }, BUILT_IN_AGENTS),
    models: modelResolver(),
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    orchestrator,
    leaseMs: 24 * HOUR,
  };
  return {
    deps,
    orchestrator,
    table: { client, tableName },
    requests,
    count,
    stop: async () => {
      client.destroy();
      await server.stop();
    },
  };
}

/** The requests a simulation made, per 1,000 candidates, by kind, and its wall time per 1,000. */
export function perThousandCandidates(
  requests: ReadonlyMap<string, number>,
  candidates: number,
  ms: number,
): Record<string, number> {
  const per = (n: number) => Math.round((n * 1_000) / candidates);
  const of = (name: string) => requests.get(name) ?? 0;
  const counted = /^(Query|GetItem|PutItem|UpdateItem|TransactWriteItems)Command$/;
  return {
    queryPer1000: per(of("QueryCommand")),
    getItemPer1000: per(of("GetItemCommand")),
    putOrUpdatePer1000: per(of("PutItemCommand") + of("UpdateItemCommand") + of("TransactWriteItemsCommand")),
    otherDynamoPer1000: per(
      [...requests]
        .filter(([name]) => name.endsWith("Command") && !counted.test(name))
        .reduce((sum, [, n]) => sum + n, 0),
    ),
    describeExecutionPer1000: per(of("DescribeExecution")),
    startExecutionPer1000: per(of("StartExecution")),
    msPer1000: Math.round((ms * 1_000) / candidates),
  };
}
