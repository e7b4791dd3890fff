import type { EventType } from "./events.ts";

/*
 * The names and constant values events carry, without their schemas: the steps that only read
 * and write events (every Lambda step, the local runtime) import these and never build the event
 * union's zod schemas, which only records from outside need (lib/core/decodeEvent.ts).
 * test/core/eventConstants.test.ts checks EVENT_TYPES against the union.
 */

/** Every type of event this schema version has, in the union's order. */
export const EVENT_TYPES = [
  "run_started",
  "user_message",
  "model_response",
  "model_failed",
  "output_rejected",
  "tool_started",
  "tool_result",
  "transferred",
  "resumed",
  "tool_decided",
  "cancelled",
  "execution_stopped",
  "budget_exhausted",
  "paused",
  "given_up",
  "response_progress",
] as const satisfies readonly EventType[];

/** The documented values of a `resumed` event's `by`. */
export const RESUMED_BY = {
  person: "person",
  sweeper: "sweeper",
  handoff: "handoff",
  /** A `runlog.ResumeRun` event on AWS: another backend asked. */
  event: "event",
  /** A redrive: a run whose model call failed for a retryable reason, resumed after the outage. */
  redrive: "redrive",
  /** An approval expired: its calls were answered as rejected by `timeout` and the run went on. */
  timeout: "timeout",
  /** The generation that opens a fork, written with its copy: part of the fork's start. */
  fork: "fork",
  /** A sub-agent's run ended and answered its parent's call (or a parent looked its child up). */
  subagent: "subagent",
} as const;

/** The `by` of a decision runlog recorded because an approval expired (lib/core/approvalExpiry.ts). */
export const DECIDED_BY_TIMEOUT = "timeout";
/** The `reason` of that decision: what the model is told about the call. */
export const APPROVAL_EXPIRED = "approval expired";

/** The reason an `execution_stopped` event records. */
export const STOPPED_OUTSIDE = "execution stopped outside runlog";
