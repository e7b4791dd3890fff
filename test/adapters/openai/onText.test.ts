import { describe, expect, it } from "vitest";
import { createOpenAIModel } from "../../../lib/adapters/openai/index.ts";
import type { ModelRequest } from "../../../lib/ports/model.ts";
import {
  droppedStream,
  type FakeReply,
  refusalReply,
  textReply,
  useFakeOpenAI,
} from "../../helpers/fakeOpenAI.ts";

const openai = useFakeOpenAI();

/** Call the model on one scripted reply, recording what onText was told. */
async function streamed(reply: FakeReply) {
  openai.fake.enqueue(reply);
  const model = createOpenAIModel({ model: "gpt-test", apiKey: "sk-test", baseURL: openai.baseURL });
  const told: string[] = [];
  const request: ModelRequest = {
    runId: "run-1",
    turn: 0,
    instructions: "Be brief.",
    messages: [{ role: "user", content: "Hi" }],
    tools: [],
    onText: (delta) => told.push(delta),
  };
  return { reply: await model.call(request), told };
}

describe("OpenAI model: onText, the response's text as it streams", () => {
  it("is told each piece of text in order, and the pieces make the reply's text", async () => {
    const { reply, told } = await streamed(textReply(["Hel", "lo ", "there"]));
    expect(told).toEqual(["Hel", "lo ", "there"]);
    expect(reply.text).toBe("Hello there");
  });

  it("is told what streamed before a break, which is the interrupted reply's text", async () => {
    const { reply, told } = await streamed(droppedStream(["Once ", "upon"]));
    expect(reply.stop).toBe("interrupted");
    expect(told.join("")).toBe(reply.text);
    expect(told).toEqual(["Once ", "upon"]);
  });

  it("is told a refusal's words, the text a refused reply keeps", async () => {
    const { reply, told } = await streamed(refusalReply(["I can't ", "help with that."]));
    expect(reply.stop).toBe("refusal");
    expect(told.join("")).toBe(reply.text);
  });
});
