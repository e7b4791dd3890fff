import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keyedRunId } from "../../lib/api/keyedIds.ts";
import type { Principal } from "../../lib/core/principal.ts";
import { call, expectError, openApp } from "./support.ts";

/**
 * Idempotency keys are per caller: with an authenticator, two owners sending the same key with
 * the same body get two runs (or batches), neither learns the other used the key, and each one's
 * retries still converge on its own. Tenants share runs, so they share keys too.
 */
const PRINCIPALS: Record<string, Principal> = {
  alice: { id: "arn:aws:iam::1:user/alice" },
  bob: { id: "arn:aws:iam::1:user/bob" },
  ana: { id: "sub-ana", tenant: "acme" },
  ben: { id: "sub-ben", tenant: "acme" },
};
const as = (who: string, key: string) => ({ "x-test-principal": who, "idempotency-key": key });
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-idempotency-scope", {
    allowScriptFiles: true,
    principal: (c) => PRINCIPALS[c.req.header("x-test-principal") ?? ""],
  });
});
afterAll(() => t.close());

async function settled(runId: string, who: string) {
  for (;;) {
    const { status, body } = await call(t.app, "GET", `/runs/${runId}`, undefined, {
      "x-test-principal": who,
    });
    expect(status, JSON.stringify(body)).toBe(200);
    if (body.status !== "running") return body;
    await sleep(10);
  }
}

const body = { agent: "demo", input: "plan my day", model: "scripted:demo" };

describe("Idempotency-Key per caller", () => {
  it("POST /runs: the same key and body from two owners starts two runs, each retried to its own", async () => {
    const alices = await call(t.app, "POST", "/runs", body, as("alice", "checkout-1"));
    expect(alices.status, JSON.stringify(alices.body)).toBe(202);
    const bobs = await call(t.app, "POST", "/runs", body, as("bob", "checkout-1"));
    expect(bobs.status, JSON.stringify(bobs.body)).toBe(202);
    expect(bobs.body.runId).not.toBe(alices.body.runId);
    // Each one's retry converges on its own run, and another body is refused to that owner only.
    expect(await call(t.app, "POST", "/runs", body, as("alice", "checkout-1"))).toMatchObject({
      status: 200,
      body: { runId: alices.body.runId },
    });
    expect(await call(t.app, "POST", "/runs", body, as("bob", "checkout-1"))).toMatchObject({
      status: 200,
      body: { runId: bobs.body.runId },
    });
    const other = await call(t.app, "POST", "/runs", { ...body, input: "other" }, as("bob", "checkout-1"));
    expect(expectError(other, 409, "idempotency_key_reused")).toMatchObject({ runId: bobs.body.runId });
    await settled(alices.body.runId as string, "alice");
    await settled(bobs.body.runId as string, "bob");
  });

  it("POST /runs: one tenant's members share their keys (they share their runs)", async () => {
    const anas = await call(t.app, "POST", "/runs", body, as("ana", "tenant-key"));
    expect(anas.status).toBe(202);
    const bens = await call(t.app, "POST", "/runs", body, as("ben", "tenant-key"));
    expect(bens).toMatchObject({ status: 200, body: { runId: anas.body.runId } });
    await settled(anas.body.runId as string, "ana");
  });

  it("POST /runs: a start keyed before keys were per caller is found again by its owner's retry, not by another's", async () => {
    // Before, a key named keyedRunId(key) for every caller: such a run is its owner's.
    const before = keyedRunId("placed-before");
    const first = await call(
      t.app,
      "POST",
      "/runs",
      { ...body, runId: before },
      { "x-test-principal": "alice" },
    );
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    await settled(before, "alice");
    const retried = await call(t.app, "POST", "/runs", body, as("alice", "placed-before"));
    expect(retried).toMatchObject({ status: 200, body: { runId: before } });
    const bobs = await call(t.app, "POST", "/runs", body, as("bob", "placed-before"));
    expect(bobs.status, JSON.stringify(bobs.body)).toBe(202);
    expect(bobs.body.runId).not.toBe(before);
    await settled(bobs.body.runId as string, "bob");
  });

  it("POST /runs/replays: the same key from two owners names two batches", async () => {
    const runs = { alice: "alice-day", bob: "bob-day" } as const;
    for (const [who, runId] of Object.entries(runs)) {
      expect(
        (await call(t.app, "POST", "/runs", { ...body, runId }, { "x-test-principal": who })).status,
      ).toBe(202);
      await settled(runId, who);
    }
    const alices = await call(
      t.app,
      "POST",
      "/runs/replays",
      { runIds: [runs.alice], model: "scripted:demo" },
      as("alice", "nightly"),
    );
    expect(alices.status, JSON.stringify(alices.body)).toBe(202);
    const bobs = await call(
      t.app,
      "POST",
      "/runs/replays",
      { runIds: [runs.bob], model: "scripted:demo" },
      as("bob", "nightly"),
    );
    expect(bobs.status, JSON.stringify(bobs.body)).toBe(202);
    expect(bobs.body.batchId).not.toBe(alices.body.batchId);
    const again = await call(
      t.app,
      "POST",
      "/runs/replays",
      { runIds: [runs.bob], model: "scripted:demo" },
      as("bob", "nightly"),
    );
    expect(again).toMatchObject({ status: 200, body: { batchId: bobs.body.batchId } });
    await settled(`${alices.body.batchId}.0`, "alice");
    await settled(`${bobs.body.batchId}.0`, "bob");
  });
});
