import type { Ticket } from "../ticket.ts";
import {
  type Conversation,
  errorCodeIn,
  jsonOf,
  orderIdIn,
  resultOf,
  type SeenResult,
  summaryOf,
  toolNamed,
} from "./conversation.ts";

/** What a desk model does next: call one tool, or answer (a Ticket for the agents whose output is one). */
export type Move = { call: string; arguments: Record<string, unknown> } | { answer: string | Ticket };

const BILLING_WORDS = /\b(charged?|refund|invoice|payment|paid|bill(ed|ing)?)\b/i;
const TECHNICAL_WORDS = /\b(crash(es|ed)?|error|log ?in|sign ?in|password|bug)\b/i;

const call = (name: string, args: Record<string, unknown>): Move => ({ call: name, arguments: args });

/** The triage desk: billing questions to the billing sub-agent, technical ones handed over, orders looked up. */
export function triage(c: Conversation): Move {
  const summary = summaryOf(c.ticket);
  const billing = resultOf(c, "ask_billing");
  if (billing) {
    const priority = billing.isError ? "urgent" : "high";
    return { answer: { category: "billing", priority, summary, resolution: billing.content } };
  }
  const order = resultOf(c, "lookup_order");
  if (order)
    return { answer: { category: "orders", priority: "normal", summary, resolution: orderStatus(order) } };

  const askBilling = toolNamed(c, "ask_billing");
  if (askBilling && BILLING_WORDS.test(c.ticket))
    return call(askBilling, { input: `A customer writes: "${c.ticket}" What does billing do about it?` });
  const transfer = toolNamed(c, "transfer_to_technical");
  if (transfer && TECHNICAL_WORDS.test(c.ticket))
    return call(transfer, { reason: `a technical problem: ${summary}` });
  const lookup = toolNamed(c, "lookup_order");
  const orderId = orderIdIn(c.ticket);
  if (lookup && orderId) return call(lookup, { orderId });
  return {
    answer: {
      category: "general",
      priority: "low",
      summary,
      resolution: "Someone from the desk writes back within a day.",
    },
  };
}

/** The billing specialist (a sub-agent): looks the order up, then says what billing does. */
export function billing(c: Conversation): Move {
  const orderId = orderIdIn(c.ticket);
  const found = resultOf(c, "lookup_order");
  const lookup = toolNamed(c, "lookup_order");
  if (!found && orderId && lookup) return call(lookup, { orderId });
  if (!found) return { answer: "Billing needs the order id (like A-1001) to check a charge." };
  const order = jsonOf(found);
  if (found.isError || !order || typeof order.paid !== "number")
    return { answer: `Billing could not check ${orderId ?? "the order"}: ${found.content}` };
  const extra = Number(order.charges) - 1;
  if (extra > 0)
    return {
      answer:
        `Order ${order.id} was charged ${order.charges} times for ${order.paid}. Billing refunds ` +
        `${extra} charge${extra > 1 ? "s" : ""} of ${order.paid} within 5 working days.`,
    };
  return {
    answer: `Order ${order.id} was charged once, ${order.paid}: there is no second charge to refund.`,
  };
}

/** The technical specialist (reached by handoff): checks the known incidents, then closes the ticket. */
export function technical(c: Conversation): Move {
  const summary = summaryOf(c.ticket);
  const code = errorCodeIn(c.ticket);
  const found = resultOf(c, "known_incident");
  const lookup = toolNamed(c, "known_incident");
  if (!found && code && lookup) return call(lookup, { code });
  const incident = found ? jsonOf(found) : undefined;
  const priority = /\bcrash/i.test(c.ticket) ? "high" : "normal";
  const resolution =
    incident && typeof incident.workaround === "string"
      ? `Known incident ${code}: ${incident.title}. Fix: ${incident.workaround}.`
      : "Not a known incident: an engineer reproduces it and writes back within a day.";
  return { answer: { category: "technical", priority, summary, resolution } };
}

function orderStatus(result: SeenResult): string {
  const order = jsonOf(result);
  if (result.isError || !order || typeof order.status !== "string")
    return `The order could not be found: ${result.content}`;
  const items = Array.isArray(order.items) ? order.items.join(", ") : "the items";
  return `Order ${order.id} (${items}) is ${order.status}.`;
}
