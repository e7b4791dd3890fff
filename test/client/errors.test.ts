import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awsEndpointOf } from "../../lib/client/auth.ts";
import { createClient, type RunlogClient } from "../../lib/client/client.ts";
import { type ClientError, isClientError } from "../../lib/client/errors.ts";
import {
  ConflictError,
  ForbiddenError,
  IdempotencyKeyReusedError,
  InvalidInputError,
  ModelNotAllowedError,
  NotFoundError,
  UnauthorizedError,
  UnknownModelError,
} from "../../lib/core/errors.ts";
import { ERROR_CODES } from "../../lib/http/routeSpecs.ts";
import { DONE, EMAIL } from "../http/support.ts";
import { script } from "../support/cli.ts";
import { type ServedApp, serveApp } from "./support.ts";

/** The API's error answers as the classes runlog throws, with the facts the answer carried. */
let served: ServedApp;
let client: RunlogClient;

beforeAll(async () => {
  served = await serveApp("client-errors");
  client = createClient({ url: served.url, auth: { type: "bearer", token: served.token } });
  const paused = script(served.dir, "paused", [{ toolCalls: [EMAIL] }, DONE]);
  await client.start({ agent: "demo", input: "Mail Ana", runId: "paused", model: paused });
  await client.start({
    agent: "demo",
    input: "Hi",
    runId: "done",
    model: script(served.dir, "done", [DONE]),
  });
  for (const runId of ["paused", "done"]) {
    while ((await client.get(runId)).status === "running") await new Promise((r) => setTimeout(r, 20));
  }
});
afterAll(() => served.close());

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error as ClientError,
  );

describe("error answers become runlog's error classes", () => {
  it("404: an unknown run is a NotFoundError", async () => {
    const error = await failure(client.get("no-such-run"));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.response).toMatchObject({ status: 404, code: "not_found" });
  });

  it("400: a bad input is an InvalidInputError naming the field", async () => {
    const error = await failure(client.start({ agent: "nobody", input: "Hi" }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "agent", response: { status: 400, code: "invalid_input" } });
    const limit = await failure(client.list({ limit: 5000 }));
    expect(limit).toMatchObject({ field: "limit" });
  });

  it("409 not_resumable: a ConflictError keeping the reason", async () => {
    const error = await failure(client.resume({ runId: "paused" }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.response).toMatchObject({ status: 409, code: "not_resumable", reason: "awaiting_approval" });
  });

  it("isClientError narrows a caught error to one with the answer's response; a library error is not one", async () => {
    const caught: unknown = await client.resume({ runId: "paused" }).catch((e: unknown) => e);
    expect(
      caught instanceof ConflictError && isClientError(caught) ? caught.response.reason : undefined,
    ).toBe("awaiting_approval");
    expect(isClientError(new ConflictError("made here"))).toBe(false);
    expect(isClientError(new Error("x"))).toBe(false);
  });

  it("a completed run's resume is an answer, not an error: resumed false, reason completed", async () => {
    expect(await client.resume({ runId: "done" })).toMatchObject({
      runId: "done",
      status: "completed",
      resumed: false,
      reason: "completed",
    });
  });

  it("409 idempotency_key_reused: an IdempotencyKeyReusedError with the key and the run", async () => {
    await client.cancel("paused", { by: "ana" }, { idempotencyKey: "cancel-1" });
    const error = await failure(client.cancel("paused", { by: "bob" }, { idempotencyKey: "cancel-1" }));
    expect(error).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(error).toMatchObject({
      key: "cancel-1",
      runId: "paused",
      response: { code: "idempotency_key_reused" },
    });
  });

  it.each([
    ["start", () => client.start({ agent: "demo", input: "Hi", model: "nowhere:x" })],
    ["resume", () => client.resume({ runId: "done", model: "nowhere:x" })],
    ["fork", () => client.fork({ runId: "done", model: "nowhere:x" })],
    ["startReplays", () => client.startReplays({ runIds: ["done"], model: "nowhere:x" })],
  ])(
    "400 unknown_model on %s: an UnknownModelError with the spec and the prefixes served",
    async (_, call) => {
      const error = await failure(call());
      expect(error).toBeInstanceOf(UnknownModelError);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error).toMatchObject({ field: "model", response: { status: 400, code: "unknown_model" } });
      expect((error as unknown as UnknownModelError).spec).toBe("nowhere:x");
      expect((error as unknown as UnknownModelError).prefixes).toEqual(
        expect.arrayContaining(["openai", "scripted"]),
      );
      expect(error.message).toContain('unknown model "nowhere:x"');
    },
  );

  it("400 model_not_allowed: a ModelNotAllowedError with the spec and the allow list, in the server's words", async () => {
    const message = 'model "openai:gpt-5" is not allowed by this deployment: allowed are "scripted:*"';
    served.front(async () =>
      Response.json(
        {
          error: {
            code: "model_not_allowed",
            message,
            field: "model",
            spec: "openai:gpt-5",
            allowed: ["scripted:*"],
          },
        },
        { status: 400 },
      ),
    );
    try {
      const error = await failure(client.start({ agent: "demo", input: "Hi", model: "openai:gpt-5" }));
      expect(error).toBeInstanceOf(ModelNotAllowedError);
      expect(error).toMatchObject({ field: "model", spec: "openai:gpt-5", allowed: ["scripted:*"], message });
    } finally {
      served.front(undefined);
    }
  });

  it.each([
    [
      "start",
      (input: string) =>
        client.start({ agent: "demo", input, model: "scripted:demo" }, { idempotencyKey: "start-1" }),
    ],
    [
      "startReplays",
      (model: string) =>
        client.startReplays(
          { runIds: ["done"], model: `scripted:${model}` },
          { idempotencyKey: "replays-1" },
        ),
    ],
  ])("409 idempotency_key_reused on %s: an IdempotencyKeyReusedError with the key", async (_, call) => {
    const first = (await call("demo")) as { runId?: string; batchId?: string };
    const error = await failure(call(script(served.dir, "other-body", [DONE]).slice("scripted:".length)));
    expect(error).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(error.response).toMatchObject({ status: 409, code: "idempotency_key_reused" });
    expect(error.runId).toBe(first.runId ?? `${first.batchId}.0`);
    const runs = [first.runId ?? `${first.batchId}.0`];
    for (const runId of runs)
      while ((await client.get(runId)).status === "running") await new Promise((r) => setTimeout(r, 20));
  });

  it.each(
    ERROR_CODES.filter((code) => ["invalid_input", "unknown_model", "model_not_allowed"].includes(code)).map(
      (code) => [code] as const,
    ),
  )("every 400 the server names a field on keeps it: %s", async (code) => {
    served.front(async () =>
      Response.json({ error: { code, message: "bad", field: "model" } }, { status: 400 }),
    );
    try {
      expect(await failure(client.get("done"))).toMatchObject({ name: "InvalidInputError", field: "model" });
    } finally {
      served.front(undefined);
    }
  });

  it("401: a wrong token is an UnauthorizedError", async () => {
    const stranger = createClient({ url: served.url, auth: { type: "bearer", token: "not-the-token" } });
    const error = await failure(stranger.get("done"));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error.response).toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("a gateway's own answer (not the API's shape) is classed by its status", async () => {
    served.front(async () => Response.json({ message: "Forbidden" }, { status: 403 }));
    try {
      const error = await failure(client.get("done"));
      expect(error).toBeInstanceOf(ForbiddenError);
      expect(error.message).toBe("HTTP 403: Forbidden");
      expect(error.response).toEqual({ status: 403 });
    } finally {
      served.front(undefined);
    }
  });
});

describe("bad arguments are refused before anything is sent", () => {
  it.each([
    ["a blank run id", "runId", () => client.get(" ")],
    ["a message that is not text", "message", () => client.send("done", 42 as unknown as string)],
    ["a seq below 1", "seq", () => client.event("done", 0)],
    [
      "a runId and an idempotencyKey",
      "runId",
      () => client.start({ agent: "demo", input: "x", runId: "a" }, { idempotencyKey: "k" }),
    ],
  ])("%s: InvalidInputError naming %s", async (_, field, call) => {
    const from = served.requests.length;
    await expect(call()).rejects.toMatchObject({ name: "InvalidInputError", field });
    expect(served.requests.length).toBe(from);
  });

  it.each([
    ["no URL", "url", { url: "runs", auth: { type: "none" } }],
    ["a URL that is not http", "url", { url: "ftp://example.com", auth: { type: "none" } }],
    ["no auth", "auth", { url: "https://example.com" }],
    ["an empty token", "auth.token", { url: "https://example.com", auth: { type: "bearer", token: "" } }],
    [
      "SigV4 to a custom domain without a region",
      "auth.region",
      { url: "https://api.example.com", auth: { type: "sigv4" } },
    ],
  ])("createClient with %s: InvalidInputError naming %s", (_, field, options) => {
    expect(() => createClient(options as Parameters<typeof createClient>[0])).toThrow(
      expect.objectContaining({ name: "InvalidInputError", field }),
    );
  });
});

describe("the region and service of a signed request come from the URL", () => {
  it.each([
    ["abc123.execute-api.eu-west-1.amazonaws.com", { region: "eu-west-1", service: "execute-api" }],
    ["abc123.execute-api.cn-north-1.amazonaws.com.cn", { region: "cn-north-1", service: "execute-api" }],
    ["xyz.lambda-url.us-east-2.on.aws", { region: "us-east-2", service: "lambda" }],
    ["api.example.com", undefined],
  ])("%s", (host, expected) => {
    expect(awsEndpointOf(host)).toEqual(expected);
  });
});
