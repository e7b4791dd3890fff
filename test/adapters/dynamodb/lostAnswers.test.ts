import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DynamoConnection } from "../../../lib/adapters/dynamodb/connect.ts";
import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import { started } from "../../contract/fixtures.ts";
import {
  type FaultProxy,
  type ProxiedRequest,
  startFaultProxy,
} from "../../reliability/support/faultProxy.ts";
import { type InProcessDynalite, startDynalite } from "../../support/dynalite.ts";
import { connectDynamo } from "../../support/store.ts";

/**
 * A lease release whose first attempt landed but whose answer was lost: the SDK sends the update
 * again, which fails its condition on our own write. The store must still say it succeeded.
 */
let server: InProcessDynalite;
let proxy: FaultProxy;
let faulty: DynamoConnection;
let direct: DynamoConnection;
let store: DynamoEventStore;
let truth: DynamoEventStore;
const prefix = `lost${Date.now().toString(36)}`;

beforeAll(async () => {
  server = await startDynalite();
  proxy = await startFaultProxy(server.endpoint, 700);
  const env = { RUNLOG_DYNAMODB_ENDPOINT: proxy.url, RUNLOG_TABLE: "lost-answers" };
  faulty = await connectDynamo({ env });
  direct = await connectDynamo({ env: { ...env, RUNLOG_DYNAMODB_ENDPOINT: server.endpoint } });
  store = new DynamoEventStore({ client: faulty.client, tableName: faulty.tableName });
  truth = new DynamoEventStore({ client: direct.client, tableName: direct.tableName });
});
afterAll(async () => {
  faulty.client.destroy();
  direct.client.destroy();
  await proxy.close();
  await server.stop();
});

/** Lose the answer to the first request `matches` accepts, once; the ones after pass through. */
function loseFirstAnswer(matches: (update: string) => boolean): { lost: number } {
  const seen = { lost: 0 };
  proxy.choose = (request: ProxiedRequest) => {
    if (seen.lost > 0 || request.operation !== "UpdateItem") return undefined;
    const update = (JSON.parse(request.body) as { UpdateExpression?: string }).UpdateExpression ?? "";
    if (!matches(update)) return undefined;
    seen.lost++;
    return "lost-answer";
  };
  return seen;
}

describe("a lease release whose answer was lost", () => {
  it("releaseLease says true: the SDK's second attempt met our own release", async () => {
    const runId = `${prefix}-release`;
    await truth.createRun(started(runId), { owner: "holder", until: Date.now() + 60_000 });
    const seen = loseFirstAnswer((update) => update.includes("REMOVE leaseOwner"));
    expect(await store.releaseLease(runId, "holder", { status: "completed", lastSeq: 1 })).toBe(true);
    expect(seen.lost).toBe(1);
    const head = await truth.getHead(runId);
    expect(head).toMatchObject({ status: "completed" });
    expect(head?.lease).toBeUndefined();
    // Still exact afterwards: a second release by the same owner is false.
    expect(await store.releaseLease(runId, "holder", { status: "completed", lastSeq: 1 })).toBe(false);
  });
});
