import { spawn } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PARTIAL_RESPONSE_NOTE } from "../../lib/core/messages.ts";
import { createFakeOpenAI, type FakeDelta, textReply } from "../helpers/fakeOpenAI.ts";
import { cleanup, events, ROOT, runlogJson, storeEnv, tempDataDir, testEnv } from "../support/cli.ts";

/** A real `runlog run` process killed (SIGKILL) while a local OpenAI-compatible server streams to it. */
const dir = tempDataDir("killed-mid-stream");
const fake = createFakeOpenAI();
let server: { baseURL: string; close: () => Promise<void> };
const GAP_MS = 100;
const WORDS = Array.from({ length: 120 }, (_, i) => `word${i} `);

beforeAll(async () => {
  server = await fake.start();
});
afterAll(async () => {
  await server.close();
  await cleanup(dir);
});

const env = () => ({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-test" });
/** The text saved so far ("" before the child has written the run). */
const savedText = async () =>
  (await events(dir, "story").catch(() => []))
    .filter((event) => event.type === "response_progress")
    .map((event) => event.text as string)
    .join("");

describe("a process killed mid-stream", () => {
  it("keeps the streamed text up to the last 2 s, and resume continues it instead of starting again", async () => {
    let sent = 0;
    const deltas: FakeDelta[] = WORDS.map((content, i) =>
      i === 0 ? { role: "assistant", content } : { content },
    );
    fake.enqueue({
      kind: "stream",
      deltas,
      ending: { finishReason: "stop" },
      gapMs: GAP_MS,
      sent: (count) => {
        sent = count;
      },
    });
    const child = spawn(
      process.execPath,
      [
        join(ROOT, "bin", "runlog.js"),
        "run",
        "--run-id",
        "story",
        "--model",
        "openai:gpt-test",
        "Tell me a story",
        "--dir",
        dir,
      ],
      { env: testEnv({ ...storeEnv(dir), ...env() }), stdio: "ignore" },
    );
    const exited = new Promise<string | null>((resolve) =>
      child.on("close", (_code, signal) => resolve(signal)),
    );
    const until = Date.now() + 20_000;
    while ((await savedText()) === "" && Date.now() < until) await sleep(50);
    child.kill("SIGKILL");
    const sentAtKill = sent;
    expect(await exited).toBe("SIGKILL");
    expect(sentAtKill).toBeLessThan(WORDS.length);

    const saved = await savedText();
    const streamed = WORDS.slice(0, sentAtKill).join("");
    expect(saved.length).toBeGreaterThan(0);
    expect(streamed.startsWith(saved)).toBe(true);
    // What was lost: the words sent after the last save, at one word per GAP_MS.
    const lostWords = sentAtKill - WORDS.findIndex((_, i) => WORDS.slice(0, i + 1).join("") === saved) - 1;
    expect(lostWords * GAP_MS).toBeLessThanOrEqual(2_000);
    expect((await events(dir, "story")).some((event) => event.type === "model_response")).toBe(false);

    const point = await runlogJson(dir, ["resume-point", "story"], env());
    expect(point.json).toMatchObject({ resumable: true, kind: "continue_partial" });
    const shown = await runlogJson<{ events?: { type: string }[] }>(dir, ["show", "story"], env());
    expect(shown.stdout).toContain("response_progress");

    fake.enqueue(textReply(["The end."]));
    const resumed = await runlogJson(dir, ["resume", "story"], env());
    expect(resumed.json, resumed.stderr).toMatchObject({ status: "completed", output: `${saved}The end.` });
    const messages = fake.requests.at(-1)!.body.messages as { role: string; content: string }[];
    expect(messages.slice(-2)).toEqual([
      { role: "assistant", content: saved },
      { role: "user", content: PARTIAL_RESPONSE_NOTE },
    ]);
    const [response] = (await events(dir, "story")).filter((event) => event.type === "model_response");
    expect(response).toMatchObject({ stop: "stop", text: `${saved}The end.` });
  }, 60_000);

  it("a response that completes supersedes what was saved of it: the answer is its text once", async () => {
    const words = WORDS.slice(0, 30);
    fake.enqueue({
      kind: "stream",
      deltas: words.map((content, i) => (i === 0 ? { role: "assistant", content } : { content })),
      ending: { finishReason: "stop" },
      gapMs: GAP_MS,
    });
    const args = ["run", "--run-id", "whole", "--model", "openai:gpt-test", "Tell me a story"];
    const run = await runlogJson(dir, args, env());
    expect(run.json, run.stderr).toMatchObject({ status: "completed", output: words.join("") });
    const log = await events(dir, "whole");
    const types = log.map((event) => event.type);
    expect(types.at(-1)).toBe("model_response");
    expect(types).toContain("response_progress");
    expect(log.at(-1)).toMatchObject({ text: words.join("") });
    expect((await runlogJson(dir, ["resume-point", "whole"], env())).json).toMatchObject({
      resumable: false,
      reason: "completed",
    });
  }, 60_000);
});
