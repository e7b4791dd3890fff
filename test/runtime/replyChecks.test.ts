import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent } from "../../lib/agents/defineAgent.ts";
import { defineTool } from "../../lib/agents/defineTool.ts";
import type { Model } from "../../lib/ports/model.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";

const shouter = defineAgent({
  name: "shouter",
  instructions: "Shout.",
  model: "twice:x",
  tools: [
    defineTool({
      name: "shout",
      description: "Shout a word.",
      parameters: z.object({ word: z.string() }),
      run: ({ word }) => word.toUpperCase(),
    }),
  ],
});

let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

describe("a reply of the caller's own model with two tool calls of one id", () => {
  it("is refused at the provider's edge, never written, and recorded as a rejection", async () => {
    const twice = (): Model => ({
      spec: "twice:x",
      call: async () => ({
        text: "",
        toolCalls: [
          { id: "a", name: "shout", arguments: '{"word":"one"}' },
          { id: "a", name: "shout", arguments: '{"word":"two"}' },
        ],
        stop: "tool_calls",
      }),
    });
    opened = await createTestRunlog({ agents: { shouter }, models: { twice } });
    const result = await opened.runlog.start({ agent: "shouter", input: "x", model: "twice:x" });
    const events = await opened.events(result.runId);
    expect(events.some((e) => e.type === "model_response")).toBe(false);
    expect(events.at(-1)).toMatchObject({
      type: "model_failed",
      retryable: false,
      error: {
        name: "ModelRejectedError",
        message: expect.stringContaining('reply.toolCalls[1].id "a" is the id of toolCalls[0] too'),
      },
    });
    // The log still reads: the run can be resumed once the model behaves.
    expect((await opened.runlog.resumePoint(result.runId)).resumable).toBe(true);
  });
});
