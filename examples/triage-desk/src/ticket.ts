import * as z from "zod";

/**
 * What the desk answers every customer message with: the triage agent's final answer (and the
 * technical agent's, when the run was handed to it) must be JSON this schema accepts, and the
 * run's outcome carries the parsed value, typed.
 */
export const Ticket = z.object({
  category: z.enum(["billing", "technical", "orders", "general"]).describe("Which desk the message is for"),
  priority: z.enum(["low", "normal", "high", "urgent"]).describe("How soon someone must act"),
  summary: z.string().min(1).max(200).describe("The customer's problem in one sentence"),
  resolution: z.string().min(1).describe("What was done or what the customer is told"),
});
export type Ticket = z.infer<typeof Ticket>;

/** The three messages `npm start` triages, one per way the desk composes its agents. */
export const SAMPLE_TICKETS = {
  /** The triage agent asks the billing specialist (a sub-agent, its own child run). */
  billing: "I was charged twice for order A-1002. Please refund the second charge.",
  /** The triage agent hands the conversation to the technical specialist. */
  technical: "The app crashes with error E42 every time I log in since this morning.",
  /** The triage agent looks the order up itself, on the shop's MCP server. */
  orders: "Where is my order A-1003? It has been a week.",
} as const;
