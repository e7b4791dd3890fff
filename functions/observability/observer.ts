import type { Logger } from "@aws-lambda-powertools/logger";
import type { Metrics } from "@aws-lambda-powertools/metrics";
import { METRICS, type ModelFailureKind } from "../../lib/adapters/aws/metrics.ts";
import { DECIDED_BY_TIMEOUT } from "../../lib/core/eventConstants.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import type { StepObserver } from "../../lib/steps/deps.ts";
import { emit } from "./emit.ts";

/**
 * The metrics of what a step did, read off the events it appended (the log is the truth: a
 * metric counts what was written, not what was attempted), and the seq it reached as a log key.
 * Logs name events by type and seq only: never their text, arguments or results.
 */
export function stepObserver(logger: Logger, metrics: Metrics): StepObserver {
  return {
    appended(_runId, event) {
      logger.appendKeys({ seq: event.seq });
      logger.debug("event appended", { type: event.type });
      emitFor(metrics, event);
    },
    lostRace(_runId, seq) {
      logger.info("lost the race for a seq to another writer; reading the log again", { lostSeq: seq });
      emit(metrics, [[METRICS.lostSeqRaces, 1]], {});
    },
    gaveUp(runId, resumes) {
      logger.warn("automatic resumes ran out: the run waits for a person", { runId, resumes });
      emit(metrics, [[METRICS.sweepGaveUp, 1]], {});
    },
  };
}

function emitFor(metrics: Metrics, event: RunEvent): void {
  switch (event.type) {
    // A rejected final answer is a model turn too: its latency and tokens count.
    case "model_response":
    case "output_rejected":
      emit(
        metrics,
        [
          ...(event.ms === undefined ? [] : ([[METRICS.modelLatency, event.ms]] as const)),
          ...(event.usage === undefined
            ? []
            : ([
                [METRICS.modelInputTokens, event.usage.inputTokens],
                [METRICS.modelOutputTokens, event.usage.outputTokens],
              ] as const)),
        ],
        {},
      );
      return;
    case "model_failed":
      emit(metrics, [[METRICS.modelFailures, 1]], { kind: modelFailureKind(event.retryable) });
      return;
    case "tool_result":
      // A result runlog wrote for an interrupted call is recovery, not the tool failing.
      if (event.isError && !event.interrupted) emit(metrics, [[METRICS.toolErrors, 1]], {});
      return;
    case "resumed":
      emit(metrics, [[METRICS.resumes, 1]], { by: event.by ?? "unknown", kind: event.kind });
      return;
    case "tool_decided":
      if (event.by === DECIDED_BY_TIMEOUT) emit(metrics, [[METRICS.approvalsExpired, 1]], {});
      return;
    case "execution_stopped":
      emit(metrics, [[METRICS.executionsStoppedOutside, 1]], {});
      return;
    case "run_started":
    case "user_message":
    case "tool_started":
    case "transferred":
    case "cancelled":
    case "budget_exhausted":
    case "paused":
    case "given_up":
    case "response_progress":
      return;
    default: {
      const never: never = event;
      throw new Error(`unhandled event type ${(never as RunEvent).type}`);
    }
  }
}

/** Retries spent on an unavailable model page differently from a request the model refused. */
const modelFailureKind = (retryable: boolean): ModelFailureKind => (retryable ? "retryable" : "rejected");
