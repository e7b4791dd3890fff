import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { test } from "vitest";
import { createBedrockModel } from "../../../lib/adapters/bedrock/index.ts";
import { type ContractReply, describeModelContract } from "../../../lib/testing/index.ts";
import {
  accessDenied,
  type ConverseReply,
  contextTooLong,
  cutStream,
  stalledStream,
  startConverseServer,
  textStream,
  throttled,
  toolUseStream,
} from "../../support/converseServer.ts";

const STOP_REASONS = { stop: "end_turn", max_output: "max_tokens", refusal: "guardrail_intervened" } as const;

/** How Bedrock's ConverseStream says each reply, in its event-stream framing. */
function converseReplyFor(reply: ContractReply): ConverseReply {
  switch (reply.kind) {
    case "text":
      return textStream(reply.pieces, STOP_REASONS[reply.ending]);
    case "tool_calls":
      return toolUseStream(
        reply.calls.map((call, index) => {
          // The input arrives as JSON text in pieces, split mid-token as the service does.
          const half = Math.ceil(call.arguments.length / 2);
          const pieces = [call.arguments.slice(0, half), call.arguments.slice(half)];
          return { id: `tooluse_contract${index}`, name: call.name, pieces };
        }),
      );
    case "context_full":
      return contextTooLong();
    case "retryable":
      return throttled();
    case "rejected":
      return accessDenied();
    case "cut":
      return cutStream(reply.pieces);
    case "slow":
      return stalledStream([]);
    default: {
      const unknown: never = reply;
      throw new Error(`unhandled reply ${JSON.stringify(unknown)}`);
    }
  }
}

describeModelContract(test, {
  name: "bedrock",
  async open() {
    const server = await startConverseServer();
    const client = new BedrockRuntimeClient({
      endpoint: server.url,
      region: "us-east-1",
      credentials: { accessKeyId: "AKIDCONTRACT", secretAccessKey: "contract-secret" },
      // One attempt: the contract sees each failure as the server sends it.
      maxAttempts: 1,
    });
    const model = createBedrockModel({ modelId: "anthropic.claude-contract-v1:0", client });
    return {
      model,
      reply: (reply) => server.enqueue(converseReplyFor(reply)),
      close: async () => {
        client.destroy();
        await server.close();
      },
    };
  },
});
