import { assertNever } from "./assertNever.ts";
import { RESUMED_BY } from "./eventConstants.ts";
import type { EventOf, RunEvent, RunStarted } from "./events.ts";
import {
  LIFECYCLE_SOURCE,
  LIFECYCLE_VERSION,
  type LifecycleCommon,
  type LifecycleEvent,
  type LifecycleType,
} from "./lifecycleSchemas.ts";
import { notRedrivableWhy } from "./redrive.ts";
import type { RunStatus } from "./status.ts";
import { forkParentOf } from "./subagents.ts";
import { jsonBytes } from "./utf8.ts";

export * from "./lifecycleSchemas.ts";

/** The most an EventBridge entry may hold (source, detail-type, detail and time, as UTF-8). */
export const MAX_ENTRY_BYTES = 256 * 1024;

/** The most of an error message a RunFailed carries. */
const MAX_MESSAGE_CHARS = 2048;

export interface LifecycleOptions {
  /** The deployment's HTTP API address, for the link to a value left out to fit an entry. @default no link */
  apiUrl?: string;
  /** The most an event may take as an EventBridge entry. @default MAX_ENTRY_BYTES */
  maxEntryBytes?: number;
  /**
   * For a final answer: the text of the responses cut at the output limit that it continues
   * (continuedText), which RunCompleted's output holds before the answer's own. @default ""
   */
  continued?: string;
}

/**
 * Which types of log event may imply a lifecycle event: a record over every type, so a new type of
 * event cannot be added without deciding here whether a backend hears of it.
 */
const ANNOUNCES: Record<RunEvent["type"], boolean> = {
  run_started: true,
  model_response: true,
  model_failed: true,
  output_rejected: true,
  paused: true,
  cancelled: true,
  resumed: true,
  given_up: true,
  budget_exhausted: true,
  execution_stopped: true,
  user_message: false,
  tool_started: false,
  tool_result: false,
  // A transfer goes on within the run: lifecycle events name the agent the run was started with.
  transferred: false,
  tool_decided: false,
  response_progress: false,
};

/** Stops the execution goes on from by itself (tools to run, a response to continue or start again). */
const GOING_ON = new Set(["tool_calls", "max_output", "interrupted"]);

/** Whether `event` may imply a lifecycle event (so a publisher need not read the run's start for the others). */
export const mayAnnounce = (event: RunEvent): boolean =>
  ANNOUNCES[event.type] &&
  !(event.type === "model_response" && GOING_ON.has(event.stop)) &&
  // A rejected answer the model is asked again about is part of the run going on.
  !(event.type === "output_rejected" && event.retry);

/**
 * The lifecycle events one committed log event implies, given the run's `run_started` (for its
 * agent, owner and metadata). Pure, and the one derivation: the AWS publisher applies it to each
 * event the table's stream shows, the local runtime to each event it commits, so what is
 * published is what the log holds, never what a step meant to write. Copies of a parent's events
 * in a fork, and the `resumed` that opens a fork, imply nothing: the fork's RunStarted says it.
 */
export function lifecycleOf(
  event: RunEvent,
  start: RunStarted,
  options: LifecycleOptions = {},
): LifecycleEvent[] {
  if (!mayAnnounce(event)) return [];
  const fork = forkParentOf(start.parent);
  const copied = fork !== undefined && event.seq > 1 && event.seq <= fork.seq;
  if (copied) return [];
  const generation = event.gen ?? (event.type === "resumed" ? event.generation : 1);
  const common: Common = (type, status) => ({
    version: LIFECYCLE_VERSION,
    type,
    id: `${start.runId}/${event.seq}`,
    runId: start.runId,
    seq: event.seq,
    at: event.at,
    generation,
    agent: start.agent,
    ...(start.owner === undefined ? {} : { owner: start.owner }),
    status,
    ...(start.metadata === undefined ? {} : { metadata: start.metadata }),
  });
  const toFit = fitting(start.runId, event.seq, options);
  switch (event.type) {
    case "run_started":
      return [
        {
          ...common("runlog.RunStarted", "running"),
          type: "runlog.RunStarted",
          model: event.model,
          ...(event.parent === undefined ? {} : { parent: event.parent }),
        },
      ];
    case "model_response":
      return [responseEnd(event, common, toFit, options.continued ?? "")];
    case "model_failed": {
      const retryable = notRedrivableWhy(event) === undefined;
      return [
        {
          ...common("runlog.RunFailed", "failed"),
          type: "runlog.RunFailed",
          reason: "model_failed",
          message: event.error.message.slice(0, MAX_MESSAGE_CHARS),
          error: event.error.name,
          retryable,
        },
      ];
    }
    case "output_rejected":
      return [
        {
          ...common("runlog.RunFailed", "invalid_output"),
          type: "runlog.RunFailed",
          reason: "invalid_output",
          message: event.problems.slice(0, MAX_MESSAGE_CHARS),
          retryable: false,
        },
      ];
    case "paused": {
      const paused = {
        ...common("runlog.RunPaused", "paused"),
        type: "runlog.RunPaused" as const,
        calls: event.calls,
      };
      return [
        toFit(paused, () => ({
          ...paused,
          calls: event.calls.map(({ id, name }) => ({ id, name })),
          argumentsAt: toFit.ref,
        })),
      ];
    }
    case "cancelled":
      return [
        {
          ...common("runlog.RunCancelled", "cancelled"),
          type: "runlog.RunCancelled",
          by: event.by,
          ...(event.onBehalfOf === undefined ? {} : { onBehalfOf: event.onBehalfOf }),
          ...(event.reason === undefined ? {} : { reason: event.reason.slice(0, MAX_MESSAGE_CHARS) }),
        },
      ];
    case "resumed":
      // A handoff moves a long run to a new execution, and a fork's opening is part of its start:
      // neither is a resume anyone asked for.
      if (event.by === RESUMED_BY.handoff || event.by === RESUMED_BY.fork) return [];
      return [
        {
          ...common("runlog.RunResumed", "running"),
          type: "runlog.RunResumed",
          by: event.by ?? "unknown",
          ...(event.actor === undefined ? {} : { actor: event.actor }),
          ...(event.onBehalfOf === undefined ? {} : { onBehalfOf: event.onBehalfOf }),
          kind: event.kind,
          newMessage: event.input !== undefined,
        },
      ];
    case "given_up":
      // Giving up rests the run as `interrupted`: it waits for a person's resume.
      return [
        { ...common("runlog.RunGivenUp", "interrupted"), type: "runlog.RunGivenUp", resumes: event.resumes },
      ];
    case "budget_exhausted":
      return [
        {
          ...common("runlog.RunFailed", "budget_exhausted"),
          type: "runlog.RunFailed",
          reason: "budget_exhausted",
          message: `${event.limit} ${event.limits[event.limit]} reached: ${event.used.turns} turns, ${event.used.tokens} tokens${event.used.costUsd === undefined ? "" : `, $${event.used.costUsd.toFixed(4)}`}`,
          retryable: false,
        },
      ];
    case "execution_stopped":
      // Rests the run as `interrupted` until a person resumes it: no automatic resume moves it.
      return [
        {
          ...common("runlog.RunFailed", "interrupted"),
          type: "runlog.RunFailed",
          reason: "stopped_outside",
          message: event.reason,
          retryable: false,
        },
      ];
    case "user_message":
    case "tool_started":
    case "tool_result":
    case "transferred":
    case "tool_decided":
    case "response_progress":
      return [];
    default:
      return assertNever(event);
  }
}

type Common = (type: LifecycleType, status: RunStatus) => LifecycleCommon & { type: LifecycleType };

/** A response that ends the run (a final answer, or one resume cannot go on from); none for a tool call. */
function responseEnd(
  event: EventOf<"model_response">,
  common: Common,
  toFit: Fit,
  continued: string,
): LifecycleEvent {
  if (event.stop === "stop") {
    const output = continued + event.text;
    const done = {
      ...common("runlog.RunCompleted", "completed"),
      type: "runlog.RunCompleted" as const,
      output,
      outputBytes: Buffer.byteLength(output),
    };
    const { output: _, ...withoutOutput } = done;
    return toFit(done, () => ({ ...withoutOutput, outputAt: toFit.ref }));
  }
  const failed = (
    reason: "refused" | "context_full" | "unknown_stop",
    status: RunStatus,
    message: string,
  ) => ({
    ...common("runlog.RunFailed", status),
    type: "runlog.RunFailed" as const,
    reason,
    message,
    retryable: false,
  });
  switch (event.stop) {
    case "refusal":
      return failed("refused", "refused", "the model refused; the same input would be refused again");
    case "context_full":
      return failed("context_full", "context_full", "the context window is full");
    default:
      // Only final stops get here (mayAnnounce): any stop resume does not know ends the run.
      return failed(
        "unknown_stop",
        "unknown_stop",
        `the response stopped for an unknown reason: ${event.stop}`,
      );
  }
}

/** An event as it fits an EventBridge entry: itself, or the smaller form `smaller` makes. */
type Fit = (<E extends LifecycleEvent>(event: E, smaller: () => LifecycleEvent) => LifecycleEvent) & {
  ref: { runId: string; seq: number; url?: string };
};

function fitting(runId: string, seq: number, options: LifecycleOptions): Fit {
  const max = options.maxEntryBytes ?? MAX_ENTRY_BYTES;
  const url =
    options.apiUrl === undefined
      ? undefined
      : `${options.apiUrl.replace(/\/+$/, "")}/runs/${encodeURIComponent(runId)}/events/${seq}`;
  const toFit = ((event: LifecycleEvent, smaller: () => LifecycleEvent) =>
    entryBytes(event) <= max ? event : smaller()) as Fit;
  toFit.ref = url === undefined ? { runId, seq } : { runId, seq, url };
  return toFit;
}

/** What an event takes as an EventBridge entry: source, detail-type, detail as JSON, and the time (14). */
export function entryBytes(event: LifecycleEvent): number {
  return Buffer.byteLength(LIFECYCLE_SOURCE) + Buffer.byteLength(event.type) + jsonBytes(event) + 14;
}
