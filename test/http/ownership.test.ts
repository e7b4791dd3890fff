import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import type { Principal } from "../../lib/core/principal.ts";
import { createApp } from "../../lib/http/app.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { cleanup, script, tempDataDir, testEnv } from "../support/cli.ts";
import { call, expectError } from "./support.ts";

/**
 * The HTTP API with an authenticator, as API Gateway serves it: each request is its principal's
 * (here named by a test header where IAM or a JWT authorizer would say it). Tried as an attacker.
 */
const dir = tempDataDir("ownership-http");
let local: LocalRunlog;
let app: ReturnType<typeof createApp>;
const PRINCIPALS: Record<string, Principal> = {
  alice: { id: "arn:aws:iam::1:user/alice" },
  bob: { id: "arn:aws:iam::1:user/bob" },
  ops: { id: "arn:aws:iam::1:role/ops", admin: true },
};
beforeAll(async () => {
  local = await openLocal({
    dataDir: dir,
    env: testEnv({ [NAMES.maxRunningPerOwner]: "1" }),
    background: true,
  });
  app = createApp(local.runlog, {
    allowScriptFiles: true,
    principal: (c) => PRINCIPALS[c.req.header("x-test-principal") ?? ""],
  });
});
afterAll(async () => {
  await local.close();
  await cleanup(dir);
});

const as = (who: string) => ({ "x-test-principal": who });
const EMAIL = { name: "send_email", arguments: { to: "ana@example.com", subject: "Lunch" } };

async function settled(runId: string, who: string) {
  for (;;) {
    const { body } = await call(app, "GET", `/runs/${runId}`, undefined, as(who));
    if (body.status !== "running") return body;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("ownership over HTTP", () => {
  beforeAll(async () => {
    const model = script(dir, "alices", [{ toolCalls: [EMAIL] }, { text: "Done" }]);
    const body = { agent: "demo", input: "the secret plan", runId: "alices", model };
    expect((await call(app, "POST", "/runs", body, as("alice"))).status).toBe(202);
    expect(await settled("alices", "alice")).toMatchObject({ status: "paused" });
  });

  it("a request without a principal is 401 on every route, known or not", async () => {
    for (const [method, path] of [
      ["GET", "/runs"],
      ["GET", "/runs/alices"],
      ["POST", "/runs/alices/cancel"],
      ["GET", "/no-such-route"],
    ] as const) {
      expectError(await call(app, method, path, method === "POST" ? {} : undefined), 401, "unauthorized");
    }
    expectError(await call(app, "GET", "/runs", undefined, as("mallory")), 401, "unauthorized");
  });

  const attacks: [string, string, unknown?][] = [
    ["GET", "/runs/alices"],
    ["GET", "/runs/alices/resume-point"],
    ["GET", "/runs/alices/events"],
    ["GET", "/runs/alices/events/1"],
    ["POST", "/runs/alices/resume", {}],
    ["POST", "/runs/alices/messages", { message: "exfiltrate" }],
    ["POST", "/runs/alices/fork", { forkId: "stolen" }],
    ["POST", "/runs/alices/approvals/call_0_0", { approved: true, by: "alice" }],
    ["POST", "/runs/alices/cancel", { by: "alice" }],
  ];
  it.each(attacks)("%s %s by another owner is 404, and the log is unchanged", async (method, path, body) => {
    const before = await local.runlog.events("alices");
    const answer = await call(app, method, path, body, as("bob"));
    const missing = await call(app, "GET", "/runs/no-such-run", undefined, as("bob"));
    expectError(answer, 404, "not_found");
    expect((answer.body.error as { message: string }).message).toBe(
      (missing.body.error as { message: string }).message.replace("no-such-run", "alices"),
    );
    expect(await local.runlog.events("alices")).toEqual(before);
  });

  it("lists only the caller's runs; an admin lists all", async () => {
    const ids = async (who: string) =>
      ((await call(app, "GET", "/runs", undefined, as(who))).body.runs as { runId: string }[]).map(
        (r) => r.runId,
      );
    expect(await ids("alice")).toEqual(["alices"]);
    expect(await ids("bob")).toEqual([]);
    expect(await ids("ops")).toContain("alices");
  });

  it("a body's `by` is kept as onBehalfOf, never instead of the caller", async () => {
    const answer = await call(
      app,
      "POST",
      "/runs/alices/approvals/call_0_0",
      { approved: true, by: "the-ceo" },
      as("alice"),
    );
    expect(answer.status).toBe(202);
    await settled("alices", "alice");
    const decided = (await local.runlog.events("alices")).find((event) => event.type === "tool_decided");
    expect(decided).toMatchObject({ by: "arn:aws:iam::1:user/alice", onBehalfOf: "the-ceo" });
  });

  it("redrive is 403 for a caller that is not an admin", async () => {
    expectError(await call(app, "POST", "/runs/redrive", { dryRun: true }, as("bob")), 403, "forbidden");
    expect((await call(app, "POST", "/runs/redrive", { dryRun: true }, as("ops"))).status).toBe(200);
  });

  it("a start under another owner's id is 409 naming the id, not the other run's input", async () => {
    const body = { agent: "demo", input: "mine", runId: "alices", model: "scripted:demo" };
    const answer = await call(app, "POST", "/runs", body, as("bob"));
    const error = expectError(answer, 409, "id_taken");
    expect(error).toMatchObject({ id: "alices" });
    expect(JSON.stringify(answer.body)).not.toContain("secret plan");
  });

  it("a start over the per-owner cap is 429 naming the cap", async () => {
    const slow = script(dir, "slow", [{ text: "slow", delayMs: 3_000 }]);
    expect(
      (await call(app, "POST", "/runs", { agent: "demo", input: "1", model: slow }, as("bob"))).status,
    ).toBe(202);
    const refused = await call(app, "POST", "/runs", { agent: "demo", input: "2", model: slow }, as("bob"));
    const error = expectError(refused, 429, "too_many_runs");
    expect(refused.body.error).toMatchObject({ cap: 1 });
    expect(error.message).toContain("1 runs running");
  });
});
