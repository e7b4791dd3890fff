import type { Model, ModelReply, ModelRequest } from "../../lib/index.ts";

/**
 * A model (`spy:turns`) that answers each turn with `turns[request.turn]` and keeps every request
 * it was sent, so a test can read what the model was offered (its tools, its messages).
 */
export function spyModel(turns: readonly ModelReply[], requests: ModelRequest[]): Model {
  return {
    spec: "spy:turns",
    call: async (request) => {
      requests.push(request);
      const reply = turns[request.turn];
      if (reply === undefined) throw new Error(`no scripted turn ${request.turn}`);
      return reply;
    },
  };
}
