import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeOpenAI, textReply } from "../helpers/fakeOpenAI.ts";
import { cleanup, events, runlog, runlogJson, tempDataDir } from "../support/cli.ts";

/** The model-setting flags of run, resume and fork, and what show prints of them. */
const dir = tempDataDir("cli-model-settings");
const fake = createFakeOpenAI();
let server: { baseURL: string; close: () => Promise<void> };
beforeAll(async () => {
  server = await fake.start();
});
afterAll(async () => {
  await server.close();
  await cleanup(dir);
});
const env = () => ({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-test" });

describe("runlog run --temperature --max-output-tokens --top-p --stop", () => {
  it("records the settings in run_started, and show prints them", async () => {
    const args = ["run", "--run-id", "flagged", "--temperature", "0.2", "--max-output-tokens", "100"];
    const run = await runlogJson(dir, [...args, "--top-p", "0.9", "--stop", "END", "--stop", "STOP", "Plan"]);
    expect(run.code).toBe(0);
    const [started] = await events(dir, "flagged");
    expect(started).toMatchObject({
      type: "run_started",
      modelSettings: { temperature: 0.2, maxOutputTokens: 100, topP: 0.9, stopSequences: ["END", "STOP"] },
    });
    const shown = await runlog(dir, ["show", "flagged"]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split("\n")[0]).toContain(
      'settings temperature 0.2, maxOutputTokens 100, topP 0.9, stopSequences ["END","STOP"]',
    );
  });

  it.each([
    [["--temperature", "warm"], "--temperature takes a number such as 0.2"],
    [["--max-output-tokens", "1.5"], "--max-output-tokens takes a whole number of tokens"],
    [["--top-p", "2"], "modelSettings.topP must be a number above 0, at most 1"],
    [["--temperature", "2.5"], "modelSettings.temperature must be a number from 0 to 2"],
  ])("refuses %j with exit 2, naming the flag or setting, and writes nothing", async (flags, message) => {
    const result = await runlog(dir, ["run", "--run-id", "refused", ...flags, "Plan"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect((await runlogJson(dir, ["ls"])).json).not.toMatchObject({
      runs: expect.arrayContaining([expect.objectContaining({ runId: "refused" })]),
    });
  });
});

describe("runlog resume and fork with model settings", () => {
  it("resume calls the model with the run's settings changed by its flags, recorded on resumed", async () => {
    const model = ["--model", "openai:gpt-test"];
    fake.enqueue(textReply(["Once upon"], "length"));
    const first = await runlogJson(
      dir,
      ["run", "--run-id", "cut", ...model, "--temperature", "0.3", "Go"],
      env(),
    );
    expect(first.json).toMatchObject({ status: "interrupted" });
    expect(fake.requests.at(-1)!.body).toMatchObject({ temperature: 0.3 });

    fake.enqueue(textReply([" a time."]));
    const resumed = await runlogJson(dir, ["resume", "cut", "--max-output-tokens", "64"], env());
    expect(resumed.json).toMatchObject({ status: "completed" });
    expect(fake.requests.at(-1)!.body).toMatchObject({ temperature: 0.3, max_completion_tokens: 64 });
    const marker = (await events(dir, "cut")).find((event) => event.type === "resumed");
    expect(marker).toMatchObject({ modelSettings: { maxOutputTokens: 64 } });
    const shown = await runlog(dir, ["show", "cut"], env());
    expect(shown.stdout).toContain(
      "resumed as generation 2: continue_response, model openai:gpt-test, settings maxOutputTokens 64",
    );
  });

  it("fork refuses settings for a copy that calls no model", async () => {
    const result = await runlog(dir, ["fork", "flagged", "--id", "idle-fork", "--temperature", "1"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^runlog: --temperature: the fork of run flagged/);
  });
});
