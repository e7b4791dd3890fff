import * as z from "zod";
import { SCHEMA_VERSION } from "./eventEnvelope.ts";

/*
 * The values event fields hold, shared by the event schemas (lib/core/events.ts, toolEvents.ts,
 * controlEvents.ts): a tool call as the model asked for it, why a response ended, token usage, a
 * resume's kind, a caller's idempotency key, a run's parent and its owner; and the envelope
 * every event has (eventEnvelope.ts).
 */

/** The fields every event has, whatever its type (a stored record's are checked by hand: storedEvents.ts). */
export const eventBase = {
  v: z.literal(SCHEMA_VERSION),
  seq: z.number().int().min(1),
  at: z.string().min(1),
  /**
   * The generation that owns the run once this event is written (a `resumed` event's own). Lets a
   * reader of the log's tail know the generation without reading back to the last `resumed`.
   * Absent on events written before it existed.
   */
  gen: z.number().int().min(1).optional(),
};

export const ToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** The arguments exactly as the model sent them (JSON text, possibly invalid). */
  arguments: z.string(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** Why a response ended. Known values drive the resume table; any other string is an unknown stop. */
export const KNOWN_STOPS = [
  "stop",
  "tool_calls",
  "max_output",
  "interrupted",
  "refusal",
  "context_full",
] as const;
export type KnownStop = (typeof KNOWN_STOPS)[number];

export const UsageSchema = z.object({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ResumeKindSchema = z.enum([
  "call_model",
  "run_tools",
  "recover_tools",
  "retry_response",
  "continue_response",
  "continue_partial",
]);
export type ResumeKind = z.infer<typeof ResumeKindSchema>;

/**
 * The key a caller gave a control operation (send, fork, decision, cancel) so that a retry of it
 * is recognised: recorded on the event the operation wrote, and looked up in the log under the seq
 * lock (lib/core/idempotency.ts). Printable ASCII, as an HTTP Idempotency-Key.
 */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII");

/** Where a fork was copied from: its parent run and the last seq copied. */
export const ForkParentSchema = z.object({ runId: z.string().min(1), seq: z.number().int().min(1) });
/** The tool call a sub-agent's run answers: the parent run and the call's id. */
export const CallParentSchema = z.object({ runId: z.string().min(1), callId: z.string().min(1) });
export type ForkParent = z.infer<typeof ForkParentSchema>;
export type CallParent = z.infer<typeof CallParentSchema>;

/** Whose a run is: an IAM principal ARN, a JWT subject (and its tenant), or a local OS user (`local:NAME`). */
export const OwnerSchema = z.object({ id: z.string().min(1), tenant: z.string().min(1).optional() });
