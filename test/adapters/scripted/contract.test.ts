import { test } from "vitest";
import { ScriptedModel } from "../../../lib/adapters/scripted/model.ts";
import { parseScript, type ScriptTurn } from "../../../lib/adapters/scripted/script.ts";
import { type ContractReply, describeModelContract } from "../../../lib/testing/index.ts";

/** The scripted turn that plays `reply`: the scripted provider's own way of doing each. */
function turnFor(reply: ContractReply): ScriptTurn {
  switch (reply.kind) {
    case "text":
      return { text: reply.pieces.join(""), stop: reply.ending };
    case "tool_calls":
      return { toolCalls: reply.calls.map((call) => ({ name: call.name, arguments: call.arguments })) };
    case "context_full":
      return { stop: "context_full" };
    case "retryable":
      return { error: "rate_limit" };
    case "rejected":
      return { error: "rejected" };
    case "cut":
      return { text: reply.pieces.join(""), stop: "interrupted" };
    case "slow":
      return { text: "too late", delayMs: 600_000 };
    default: {
      const unknown: never = reply;
      throw new Error(`unhandled reply ${JSON.stringify(unknown)}`);
    }
  }
}

describeModelContract(test, {
  name: "scripted",
  open() {
    let model: ScriptedModel | undefined;
    return {
      get model() {
        if (!model) throw new Error("no reply was scripted before the call");
        return model;
      },
      reply(reply) {
        model = new ScriptedModel(
          "scripted:contract",
          parseScript({ turns: [turnFor(reply)] }, "the contract"),
        );
      },
    };
  },
});
