import type { ModelFactory, ModelProviders, ModelReply, ModelRequest } from "runlog";
import { readConversation } from "./conversation.ts";
import { billing, type Move, technical, triage } from "./rules.ts";

/** The rule-based models by name: `desk:triage`, `desk:billing`, `desk:technical`. */
const RULES: Readonly<Record<string, (request: ReturnType<typeof readConversation>) => Move>> = {
  triage,
  billing,
  technical,
};

/**
 * Offline models of this project, no key needed: each reads the conversation and decides by rules
 * what a real model would. A provider of your own plugs in the same way (docs/guides/your-own-model.md);
 * point the agents at `openai:…` or `bedrock:…` to run the desk on a real model.
 */
const desk: ModelFactory = (name) => {
  const rule = RULES[name];
  // Thrown when the spec is first named, so a run on a model that does not exist is never written.
  if (!rule)
    throw new Error(
      `desk:${name}: no such desk model; the desk's models are ${Object.keys(RULES)
        .map((known) => `desk:${known}`)
        .join(", ")}`,
    );
  return {
    spec: `desk:${name}`,
    async call(request: ModelRequest): Promise<ModelReply> {
      const move = rule(readConversation(request));
      if ("call" in move) {
        // One call per turn: the turn number makes its id unique in the run.
        const id = `call_${request.turn}_0`;
        return {
          text: "",
          toolCalls: [{ id, name: move.call, arguments: JSON.stringify(move.arguments) }],
          stop: "tool_calls",
        };
      }
      const text = typeof move.answer === "string" ? move.answer : JSON.stringify(move.answer);
      request.onText?.(text);
      return { text, toolCalls: [], stop: "stop" };
    },
  };
};

/** Providers by spec prefix: `models` beside `agents` for the CLI, `openLocal` and the tests. */
export const models: ModelProviders = { desk };
