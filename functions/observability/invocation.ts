import type { Logger } from "@aws-lambda-powertools/logger";
import { METRICS } from "../../lib/adapters/aws/metrics.ts";
import { type ErrorCategory, errorCategory, errorMessage } from "../../lib/core/errors.ts";
import { redact } from "../../lib/core/redact.ts";
import { powertools } from "../../lib/runtime/aws/powertools.ts";
import { flushTraces, openStepSubsegment } from "../../lib/runtime/aws/xray.ts";
import type { StepObserver } from "../../lib/steps/deps.ts";
import { emit } from "./emit.ts";
import { mappedStack } from "./mappedStack.ts";
import { stepObserver } from "./observer.ts";

/** The context Lambda passes a handler (request id, function name …), as the logger takes it. */
export type LambdaContext = Parameters<Logger["addContext"]>[0];

/** What one invocation has to work with: its logger (with its keys) and an observer of its step. */
export interface Invocation {
  log: Logger;
  observer: StepObserver;
  /** Add keys (runId, generation, callId …) to every later line of this invocation, and log its start. */
  identify(keys: Record<string, string | number | undefined>): void;
}

/** How an invocation ended: its answer, or a benign conflict answered (see benignReason in lib/core/errors.ts). */
export type Outcome = "ok" | "answered" | ErrorCategory;

/** Expected in a distributed loop (a retry, a race, a newer generation): a warning, not an error. */
const EXPECTED: ReadonlySet<Outcome> = new Set(["RetryableError", "ConflictError", "StaleError"]);

/** The keys of `identify` that annotate the step's trace, so X-Ray can find a run's steps by them. */
const TRACE_KEYS: ReadonlySet<string> = new Set(["runId", "generation"]);

/**
 * Run one invocation of a handler observed: a logger whose lines carry `step` and the run's keys,
 * an X-Ray subsegment `## step` annotated with them, its start (debug, once `identify`d) and end
 * (info) logged, a failure logged at warn (expected kinds) or error (permanent), and the `Steps`
 * and `StepDuration` metrics by outcome. `answer` turns a benign conflict into the answer.
 */
export async function observed<O>(
  step: string,
  context: LambdaContext | undefined,
  run: (invocation: Invocation) => Promise<O>,
  answer: (error: unknown) => O | undefined = () => undefined,
): Promise<O> {
  const tools = powertools();
  const log = tools.logger.createChild({ persistentKeys: { step } });
  if (context) log.addContext(context);
  const segment = openStepSubsegment(step);
  const invocation: Invocation = {
    log,
    observer: stepObserver(log, tools.metrics),
    identify: (keys) => {
      const known = Object.entries(keys).filter(([, value]) => value !== undefined);
      log.appendKeys(Object.fromEntries(known) as Record<string, string | number>);
      for (const [key, value] of known) if (TRACE_KEYS.has(key)) segment?.annotate(key, value!);
      log.debug("step started");
    },
  };
  const started = performance.now();
  let outcome: Outcome = "ok";
  try {
    const result = await run(invocation);
    log.info("step ended", { outcome, ms: elapsed(started) });
    return result;
  } catch (error) {
    const answered = answer(error);
    if (answered !== undefined) {
      outcome = "answered";
      log.info("step answered: nothing to do", {
        outcome,
        reason: errorMessage(error),
        ms: elapsed(started),
      });
      return answered;
    }
    outcome = errorCategory(error);
    const expected = EXPECTED.has(outcome);
    segment?.fail(expected ? "error" : "fault", {
      name: error instanceof Error ? error.name : outcome,
      message: errorMessage(error),
    });
    const level = expected ? "warn" : "error";
    // Redacted as every error runlog shows (lib/core/redact.ts): a log group is read by more people than the run.
    const logged =
      error instanceof Error
        ? { name: error.name, message: errorMessage(error), stack: redact(mappedStack(error.stack ?? "")) }
        : errorMessage(error);
    log[level]("step failed", { outcome, ms: elapsed(started), error: logged });
    throw error;
  } finally {
    emit(
      tools.metrics,
      [
        [METRICS.steps, 1],
        [METRICS.stepDuration, elapsed(started)],
      ],
      { step, outcome },
    );
    segment?.close();
    await flushTraces();
  }
}

const elapsed = (since: number) => Math.round(performance.now() - since);
