import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListedEvent } from "../../lib/api/followRun.ts";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { createClient, type RunlogClient } from "../../lib/client/client.ts";
import { ForbiddenError, NotFoundError } from "../../lib/core/errors.ts";
import { apiHandler } from "../../lib/http/lambda.ts";
import { DONE, EMAIL } from "../http/support.ts";
import { type LocalApiGateway, type ProxyHandler, serveApiGateway } from "../support/apiGatewayV2.ts";
import { cleanup, script, tempDataDir, testEnv } from "../support/cli.ts";

/**
 * The client against the API as deployed: the Lambda handler (`apiHandler`, no live feed) behind
 * API Gateway's HTTP API with IAM auth — each request's SigV4 signature verified, then handed to
 * the handler as a payload 2.0 event carrying the signer's ARN. Runs execute in the background, as
 * Step Functions runs them.
 */
const REGION = "eu-west-1";
const ANA = { accessKeyId: "AKIDANA", secretAccessKey: "ana-secret" };
const BOB = { accessKeyId: "AKIDBOB", secretAccessKey: "bob-secret" };
let dir: string;
let local: LocalRunlog;
let gateway: LocalApiGateway;

const clientOf = (credentials: { accessKeyId: string; secretAccessKey: string }): RunlogClient =>
  createClient({ url: gateway.url, auth: { type: "sigv4", region: REGION, credentials } });

beforeAll(async () => {
  dir = tempDataDir("client-api-gateway");
  local = await openLocal({ dataDir: dir, background: true, env: testEnv() });
  gateway = await serveApiGateway(apiHandler(local.runlog, { allowScriptFiles: true }) as ProxyHandler, {
    [ANA.accessKeyId]: {
      secretAccessKey: ANA.secretAccessKey,
      userArn: "arn:aws:iam::123456789012:user/ana",
    },
    [BOB.accessKeyId]: {
      secretAccessKey: BOB.secretAccessKey,
      userArn: "arn:aws:iam::123456789012:user/bob",
    },
  });
});
afterAll(async () => {
  await gateway.close();
  await local.close();
  await cleanup(dir);
});

async function until(client: RunlogClient, runId: string, status: string): Promise<void> {
  while ((await client.get(runId)).status !== status) await sleep(20);
}

describe("the client through API Gateway (IAM auth) to the Lambda handler", () => {
  it("starts, approves and follows a run to its end, every event once and in order, as its signer", async () => {
    const ana = clientOf(ANA);
    const model = script(dir, "gateway", [{ toolCalls: [EMAIL] }, DONE]);
    const started = await ana.start({ agent: "demo", input: "Mail Ana", runId: "gateway", model });
    expect(started).toMatchObject({ runId: "gateway", created: true });
    await until(ana, "gateway", "paused");
    const seen: ListedEvent[] = [];
    for await (const event of ana.follow("gateway", { waitSeconds: 5 })) {
      seen.push(event);
      if (event.type === "paused") await ana.approve("gateway", "call_0_0", { reason: "checked" });
      if (event.type === "model_response" && "stop" in event && event.stop === "stop") break;
    }
    await until(ana, "gateway", "completed");
    expect(await ana.get("gateway")).toEqual({ runId: "gateway", status: "completed", output: "Done" });
    const stored = await ana.events("gateway");
    expect(seen.map((event) => event.seq)).toEqual(stored.map((event) => event.seq));
    // The IAM principal API Gateway named is who started the run and who decided.
    expect(stored[0]).toMatchObject({
      type: "run_started",
      owner: { id: "arn:aws:iam::123456789012:user/ana" },
    });
    expect(stored.find((event) => event.type === "tool_decided")).toMatchObject({
      approved: true,
      by: "arn:aws:iam::123456789012:user/ana",
    });
  });

  it("shows another signer none of it: bob's read of ana's run is not found", async () => {
    await expect(clientOf(BOB).get("gateway")).rejects.toBeInstanceOf(NotFoundError);
    expect((await clientOf(BOB).list()).runs.map((run) => run.runId)).not.toContain("gateway");
  });

  it("is refused before the handler when signed with a key's wrong secret", async () => {
    const before = gateway.verdicts.length;
    const forged = clientOf({ accessKeyId: ANA.accessKeyId, secretAccessKey: BOB.secretAccessKey });
    await expect(forged.get("gateway")).rejects.toBeInstanceOf(ForbiddenError);
    expect(gateway.verdicts.slice(before)).toEqual([
      { refused: expect.stringContaining("does not match the signature you provided") },
    ]);
  });
});
