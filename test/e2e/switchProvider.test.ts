import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { defineAgent, defineTool } from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { createFakeOpenAI, errorReply, textReply, toolCallsReply } from "../helpers/fakeOpenAI.ts";
import {
  type ConverseServer,
  converseEnv,
  startConverseServer,
  textStream,
} from "../support/converseServer.ts";

/** A run moves between providers: its history, tool calls and results paired by id, goes with it. */
const OPENAI = "openai:gpt-test";
const BEDROCK = "bedrock:anthropic.claude-test-v1:0";
// An id an OpenAI-compatible server may send and Bedrock refuses (a colon and a dot).
const CALL_ID = "call:weather.1";

const forecaster = defineAgent({
  name: "forecaster",
  instructions: "Answer with the weather.",
  model: OPENAI,
  tools: [
    defineTool({
      name: "get_weather",
      description: "The weather in a city.",
      parameters: z.object({ city: z.string() }),
      run: ({ city }) => `sunny in ${city}`,
    }),
  ],
});

const openai = createFakeOpenAI();
let openaiServer: { baseURL: string; close: () => Promise<void> };
let converse: ConverseServer;
let runlog: TestRunlog;
beforeAll(async () => {
  openaiServer = await openai.start();
  converse = await startConverseServer();
});
afterAll(async () => {
  await openaiServer.close();
  await converse.close();
});
beforeEach(async () => {
  for (const [name, value] of Object.entries(converseEnv(converse))) vi.stubEnv(name, value);
  vi.stubEnv("OPENAI_BASE_URL", openaiServer.baseURL);
  vi.stubEnv("OPENAI_API_KEY", "sk-test");
  runlog = await createTestRunlog({ agents: { forecaster } });
});
afterEach(async () => {
  await runlog.close();
  vi.unstubAllEnvs();
});

describe("a run with tool results pending moves from openai: to bedrock: and back", () => {
  it("resumes on Bedrock and completes, then a fork goes back to OpenAI and completes", async () => {
    openai.enqueue(
      toolCallsReply([{ id: CALL_ID, name: "get_weather", arguments: '{"city":"Oslo"}' }]),
      // The turn after the tool ran fails: the run rests with its tool result not yet answered.
      errorReply(400, "the request was rejected"),
    );
    const started = await runlog.runlog.start({ agent: "forecaster", input: "Weather in Oslo?" });
    expect(started.status).not.toBe("completed");
    const events = await runlog.events(started.runId);
    const result = events.find((event) => event.type === "tool_result");
    expect(result).toMatchObject({ callId: CALL_ID });

    converse.enqueue(textStream(["Sunny ", "in Oslo."]));
    const resumed = await runlog.runlog.resume({ runId: started.runId, model: BEDROCK });
    expect(resumed).toMatchObject({ status: "completed", output: "Sunny in Oslo." });
    const sent = converse.requests.at(-1)!.body.messages!;
    const useIds = sent.flatMap((m) =>
      m.content.map((b) => (b.toolUse as { toolUseId?: string })?.toolUseId),
    );
    const resultIds = sent.flatMap((m) =>
      m.content.map((b) => (b.toolResult as { toolUseId?: string })?.toolUseId),
    );
    const [useId] = useIds.filter((id) => id !== undefined);
    expect(useId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(resultIds.filter((id) => id !== undefined)).toEqual([useId]);

    openai.enqueue(textReply(["Still sunny."]));
    const forked = await runlog.runlog.fork({ runId: started.runId, atSeq: result!.seq, model: OPENAI });
    expect(forked).toMatchObject({ status: "completed", output: "Still sunny." });
    const back = openai.requests.at(-1)!.body.messages as Array<{
      role: string;
      tool_calls?: Array<{ id: string }>;
      tool_call_id?: string;
    }>;
    const callIds = back.flatMap((m) => m.tool_calls?.map((call) => call.id) ?? []);
    expect(callIds).toEqual([CALL_ID]);
    expect(back.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual([CALL_ID]);
  });

  it("refuses a model for a fork that rests, before anything is written", async () => {
    openai.enqueue(textReply(["Sunny."]));
    const done = await runlog.runlog.start({ agent: "forecaster", input: "Weather?" });
    expect(done.status).toBe("completed");
    await expect(runlog.runlog.fork({ runId: done.runId, model: BEDROCK })).rejects.toMatchObject({
      name: "InvalidInputError",
    });
  });
});
