import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openLocal } from "../../lib/api/local.ts";
import { createFakeOpenAI, textReply } from "../helpers/fakeOpenAI.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";

const dir = tempDataDir("openai-env");
const fake = createFakeOpenAI();
let server: { baseURL: string; close: () => Promise<void> };
beforeAll(async () => {
  server = await fake.start();
});
afterAll(async () => {
  await server.close();
  await cleanup(dir);
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe("openLocal({ env }) and the openai: models", () => {
  it("calls the endpoint, organization and project its env names, not what process.env says", async () => {
    // What the process has must not win over (or add to) what openLocal was given.
    vi.stubEnv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    vi.stubEnv("OPENAI_ORG_ID", "org-from-process");
    vi.stubEnv("OPENAI_PROJECT_ID", undefined);
    fake.enqueue(textReply(["from the gateway"]));
    const local = await openLocal({
      dataDir: dir,
      env: {
        OPENAI_API_KEY: "sk-gateway",
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_PROJECT_ID: "proj-given",
      },
    });
    try {
      const result = await local.runlog.start({ agent: "demo", input: "hi", model: "openai:gpt-test" });
      expect(result).toMatchObject({ status: "completed", output: "from the gateway" });
    } finally {
      await local.close();
    }
    const { headers } = fake.requests.at(-1)!;
    expect(headers.authorization).toBe("Bearer sk-gateway");
    expect(headers["openai-project"]).toBe("proj-given");
    expect(headers["openai-organization"]).toBeUndefined();
  });
});
