import { test } from "vitest";
import { createOpenAIModel } from "../../../lib/adapters/openai/index.ts";
import { type ContractReply, describeModelContract } from "../../../lib/testing/index.ts";
import {
  contextLengthError,
  createFakeOpenAI,
  droppedStream,
  errorReply,
  type FakeReply,
  refusalReply,
  serverError,
  silent,
  textReply,
  toolCallsReply,
} from "../../helpers/fakeOpenAI.ts";

/** How an OpenAI-compatible server says each reply, on the wire. */
function fakeReplyFor(reply: ContractReply): FakeReply {
  switch (reply.kind) {
    case "text":
      if (reply.ending === "refusal") return refusalReply(reply.pieces);
      return textReply(reply.pieces, reply.ending === "max_output" ? "length" : "stop");
    case "tool_calls":
      return toolCallsReply(reply.calls.map((call, index) => ({ id: `call_contract_${index}`, ...call })));
    case "context_full":
      return contextLengthError();
    case "retryable":
      return serverError();
    case "rejected":
      return errorReply(400, "Invalid value for 'messages': expected an array.", { code: "invalid_value" });
    case "cut":
      return droppedStream(reply.pieces);
    case "slow":
      return silent();
    default: {
      const unknown: never = reply;
      throw new Error(`unhandled reply ${JSON.stringify(unknown)}`);
    }
  }
}

describeModelContract(test, {
  name: "openai",
  async open() {
    const fake = createFakeOpenAI();
    const server = await fake.start();
    // No retries of the SDK's own: the contract sees each failure as the server sends it.
    const model = createOpenAIModel({
      model: "gpt-contract",
      apiKey: "sk-test",
      baseURL: server.baseURL,
      maxRetries: 0,
    });
    return { model, reply: (reply) => void fake.enqueue(fakeReplyFor(reply)), close: server.close };
  },
});
