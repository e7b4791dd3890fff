import type { ModelFactory } from "runlog";

/**
 * A model of your own, in ten lines: `shop:NAME` answers with a canned reply that names the last
 * message. A real one would call your gateway or a provider's SDK here (docs/guides/your-own-model.md).
 */
const shopModel: ModelFactory = (name) => ({
  spec: `shop:${name}`,
  async call(request) {
    const asked = request.messages.filter((message) => message.role === "user").at(-1)?.content ?? "";
    const text = `${name} here: we got "${asked}" and will write back within a day.`;
    request.onText?.(text);
    return { text, toolCalls: [], stop: "stop" };
  },
});

/** Providers by spec prefix: `--model shop:desk` in the CLI, `models` in openLocal and the tests. */
export const models: Record<string, ModelFactory> = { shop: shopModel };
