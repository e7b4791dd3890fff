import { defineAgent } from "runlog";
import { issueRefund, lookupOrder } from "./tools.ts";

/** The support agent: looks orders up and refunds them, with a person approving larger refunds. */
export const support = defineAgent({
  name: "support",
  instructions:
    "You are the support desk of a small shop. Look the order up before you answer. " +
    "Refund only what the customer paid, and say what you did in one or two sentences.",
  model: "openai:gpt-4.1-mini",
  tools: ({ dataDir }) => [lookupOrder, issueRefund(dataDir)],
});

/** What the CLI (`--agents src/agents.ts`), the tests and the deployed functions serve. */
export const agents = { support };

/** The model providers of this project, served beside the agents (`--model shop:desk`). */
export { models } from "./models.ts";
