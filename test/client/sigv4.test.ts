import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../lib/client/client.ts";
import type { ClientError } from "../../lib/client/errors.ts";
import { ForbiddenError } from "../../lib/core/errors.ts";
import { DONE } from "../http/support.ts";
import { script } from "../support/cli.ts";
import { type Verdict, verifySigV4 } from "../support/sigv4Verifier.ts";
import { type ServedApp, serveApp } from "./support.ts";

/**
 * SigV4 as a deployed API with IAM auth takes it: in front of serve's app, a verifier that signs
 * each request again with the secret of its key id (the SDK's signer) and refuses a mismatch with
 * API Gateway's 403; a request that holds goes on to the app.
 */
const KEY = { accessKeyId: "AKIDCLIENTTEST", secretAccessKey: "the-right-secret" };
const SCOPE = { region: "eu-west-1", service: "execute-api" };
let served: ServedApp;
const verdicts: Verdict[] = [];

beforeAll(async () => {
  served = await serveApp("client-sigv4");
  served.front(async (request, app) => {
    const body = await request.text();
    const verdict = await verifySigV4(request, body, { [KEY.accessKeyId]: KEY.secretAccessKey }, SCOPE);
    verdicts.push(verdict);
    if ("refused" in verdict) return Response.json({ message: verdict.refused }, { status: 403 });
    // Past the authorizer: the app's own lock is serve's token.
    const headers = new Headers(request.headers);
    headers.set("authorization", `Bearer ${served.token}`);
    return app(new Request(request.url, { method: request.method, headers, ...(body ? { body } : {}) }));
  });
});
afterAll(() => served.close());
afterEach(() => {
  verdicts.length = 0;
});

const signed = (credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }) =>
  createClient({
    url: served.url,
    auth: { type: "sigv4", region: SCOPE.region, ...(credentials ? { credentials } : {}) },
  });

describe("a client that signs with SigV4", () => {
  it("is let through: a start (body and Idempotency-Key signed) and a list (query signed)", async () => {
    const client = signed(KEY);
    const model = script(served.dir, "signed", [DONE]);
    const started = await client.start({ agent: "demo", input: "Hi", model, metadata: { order: 17 } });
    expect(started.created).toBe(true);
    const { runs } = await client.list({ limit: 10, parent: started.runId });
    expect(runs).toEqual([]);
    expect(verdicts).toEqual([{ accessKeyId: KEY.accessKeyId }, { accessKeyId: KEY.accessKeyId }]);
  });

  it("signs temporary credentials' session token too", async () => {
    const client = signed({ ...KEY, sessionToken: "a-session-token" });
    await client.list();
    expect(verdicts).toEqual([{ accessKeyId: KEY.accessKeyId }]);
  });

  it("is refused when it signs with another secret: a ForbiddenError, not retried", async () => {
    const client = signed({ accessKeyId: KEY.accessKeyId, secretAccessKey: "another-secret" });
    const error = (await client.list().catch((caught: unknown) => caught)) as ClientError;
    expect(error).toBeInstanceOf(ForbiddenError);
    expect(error.message).toContain("does not match the signature you provided");
    expect(error.response).toEqual({ status: 403 });
    expect(verdicts).toHaveLength(1);
  });

  it("is refused when it signs for another region", async () => {
    const client = createClient({
      url: served.url,
      auth: { type: "sigv4", region: "us-east-1", credentials: KEY },
    });
    await expect(client.list()).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("takes its credentials from the default chain when given none (here, the environment)", async () => {
    const saved = { ...process.env };
    process.env.AWS_ACCESS_KEY_ID = KEY.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = KEY.secretAccessKey;
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    try {
      await signed().list();
      expect(verdicts).toEqual([{ accessKeyId: KEY.accessKeyId }]);
    } finally {
      process.env = saved;
    }
  });
});
