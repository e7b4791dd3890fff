import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { defineTool } from "runlog";
import { z } from "zod";
import { findOrder } from "./orders.ts";

const orderId = z
  .string()
  .regex(/^A-\d{4}$/)
  .describe("The order id, like A-1001");

/** Reads only, so it is safe to run again after an interruption. */
export const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Look up an order: customer, items, amount paid and status.",
  parameters: z.object({ orderId }),
  idempotent: true,
  run: ({ orderId }) => findOrder(orderId) ?? { error: `there is no order ${orderId}` },
});

/** Moves money: a person approves every refund over 20 before it runs, and it never runs twice on its own. */
export function issueRefund(dataDir: string) {
  return defineTool({
    name: "issue_refund",
    description: "Refund part or all of what was paid for an order.",
    parameters: z.object({
      orderId,
      amount: z.number().positive().describe("How much to refund"),
      reason: z.string().min(3).max(200).describe("Why, in a few words"),
    }),
    needsApproval: ({ amount }) => amount > 20,
    run: async ({ orderId, amount, reason }) => {
      const order = findOrder(orderId);
      if (!order) throw new Error(`there is no order ${orderId}`);
      if (amount > order.paid) throw new Error(`${orderId} was paid ${order.paid}; cannot refund ${amount}`);
      await mkdir(dataDir, { recursive: true });
      await appendFile(join(dataDir, "refunds.jsonl"), `${JSON.stringify({ orderId, amount, reason })}\n`);
      return `refunded ${amount} for ${orderId}`;
    },
  });
}
