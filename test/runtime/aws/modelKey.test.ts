import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { awsDeps, buildDeps } from "../../../functions/deps.ts";
import { PermanentError } from "../../../lib/core/errors.ts";
import { MODEL_KEY_MAX_AGE_SECONDS, ModelKey } from "../../../lib/runtime/aws/modelKey.ts";
import { handlers } from "../../functions/handlers.ts";
import {
  busEvent,
  failure,
  SECRET_ARN,
  STATE_MACHINE_ARN,
  useFunctionEnvironment,
} from "../../functions/support.ts";
import { createFakeOpenAI, textReply } from "../../helpers/fakeOpenAI.ts";
import { asFunction } from "../../support/iam/recorder.ts";

const { callModel, startRun } = handlers;

const secrets = mockClient(SecretsManagerClient);
const sfn = mockClient(SFNClient);
const fake = createFakeOpenAI();
let stopFake = async () => {};
// The key only ever travels through the mocked Secrets Manager, never through the environment.
useFunctionEnvironment("fn-key", { STATE_MACHINE_ARN, MODEL_KEY_SECRET_ARN: SECRET_ARN });

beforeAll(async () => {
  delete process.env.OPENAI_API_KEY;
  const { baseURL, close } = await fake.start();
  process.env.OPENAI_BASE_URL = baseURL;
  stopFake = close;
  secrets
    .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
    .resolves({ SecretString: "sk-from-the-secret" });
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
  // Deployed, only callModel holds the secret's ARN and reads it while building its deps: build them
  // here as callModel, though this process plays every function, so the read is recorded as its own.
  await asFunction("callModel", awsDeps)();
});
afterAll(() => stopFake());

describe("the model key", () => {
  it("is read from Secrets Manager once while its cached copy is fresh, and sent to the provider", async () => {
    fake.enqueue(textReply(["Hello"]), textReply(["Again"]));
    for (const runId of ["key-1", "key-2"]) {
      await startRun(
        busEvent("runlog.StartRun", { agent: "demo", input: "hi", model: "openai:gpt-test", runId }),
      );
      expect(await callModel({ runId, generation: 1 })).toEqual({ action: "done" });
    }
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual([
      "Bearer sk-from-the-secret",
      "Bearer sk-from-the-secret",
    ]);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
  });

  it("is read again once its cached copy is older than its max age, so a rotated key is used", async () => {
    secrets.on(GetSecretValueCommand, { SecretId: "rotated" }).resolves({ SecretString: "sk-old" });
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-12-01T00:00:00Z") });
    try {
      const key = new ModelKey(
        new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) }),
        "rotated",
      );
      expect(await key.refresh()).toBe("sk-old");
      secrets
        .on(GetSecretValueCommand, { SecretId: "rotated" })
        .resolves({ SecretString: '{"apiKey":"sk-new"}' });
      vi.setSystemTime(new Date(Date.now() + (MODEL_KEY_MAX_AGE_SECONDS - 1) * 1000));
      expect(await key.refresh()).toBe("sk-old");
      vi.setSystemTime(new Date(Date.now() + 2000));
      expect(await key.refresh()).toBe("sk-new");
      expect(await key.current()).toBe("sk-new");
    } finally {
      vi.useRealTimers();
    }
  });

  it("may be stored as JSON, as key/value secrets are", async () => {
    secrets
      .on(GetSecretValueCommand, { SecretId: "json" })
      .resolves({ SecretString: '{"OPENAI_API_KEY":"sk-json"}' });
    const deps = await buildDeps({ ...process.env, MODEL_KEY_SECRET_ARN: "json" });
    expect(deps.steps.models("openai:gpt-test").spec).toBe("openai:gpt-test");
  });

  it("a malformed secret's error never quotes any of it", async () => {
    const secret = '{"OPENAI_API_KEY": sk-live-7f3e9a2b1c0d}';
    secrets.on(GetSecretValueCommand, { SecretId: "broken" }).resolves({ SecretString: secret });
    const error = await buildDeps({ ...process.env, MODEL_KEY_SECRET_ARN: "broken" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PermanentError);
    const told = `${(error as Error).message} ${String((error as Error).cause ?? "")}`;
    expect(told).toContain("not valid JSON");
    for (const part of ["sk-live", "7f3e9a", 'OPENAI_API_KEY": sk']) expect(told).not.toContain(part);
  });

  it("fails a cold start retryably while Secrets Manager throttles, permanently when the secret is missing", async () => {
    secrets
      .on(GetSecretValueCommand, { SecretId: "slow" })
      .rejects(Object.assign(new Error("rate"), { name: "ThrottlingException" }));
    secrets
      .on(GetSecretValueCommand, { SecretId: "gone" })
      .rejects(Object.assign(new Error("no"), { name: "ResourceNotFoundException" }));
    secrets.on(GetSecretValueCommand, { SecretId: "empty" }).resolves({ SecretString: "{}" });
    await expect(buildDeps({ ...process.env, MODEL_KEY_SECRET_ARN: "slow" })).rejects.toThrow(
      /ThrottlingException/,
    );
    await expect(buildDeps({ ...process.env, MODEL_KEY_SECRET_ARN: "slow" })).rejects.toMatchObject({
      name: "RetryableError",
    });
    await expect(buildDeps({ ...process.env, MODEL_KEY_SECRET_ARN: "gone" })).rejects.toMatchObject({
      name: "PermanentError",
    });
    await expect(buildDeps({ ...process.env, MODEL_KEY_SECRET_ARN: "empty" })).rejects.toThrow(
      /holds no model key/,
    );
  });

  it("is absent from functions deployed without the secret: they can check a model but not call it", async () => {
    const { MODEL_KEY_SECRET_ARN: _, ...withoutKey } = process.env;
    const deps = await buildDeps(withoutKey);
    const model = deps.steps.models("openai:gpt-test");
    const call = model.call({ runId: "x", turn: 0, instructions: "", messages: [], tools: [] });
    await expect(call).rejects.toThrow(/holds no model key/);
    expect(fake.requestCount).toBe(2);
  });

  it("is never configured through a plain environment variable", async () => {
    const thrown = await failure(buildDeps({ ...process.env, TABLE_NAME: "" }));
    expect(thrown).toMatchObject({
      name: "ConfigError",
      message: expect.stringMatching(/^TABLE_NAME is not set/),
    });
    expect(
      Object.keys(process.env).filter((k) => /KEY/.test(k) && process.env[k]?.startsWith("sk-")),
    ).toEqual([]);
  });
});
