import {
  errorMessage,
  ModelRejectedError,
  ModelUnavailableError,
  RetryableError,
  StaleError,
} from "../core/errors.ts";
import type { LogFacts } from "../core/log.ts";
import type { Model, ModelReply, ModelRequest } from "../ports/model.ts";
import { stepCheckpoints } from "./checkpoint.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { deadlineSignal, modelDeadline } from "./stepBudget.ts";
import type { Kept } from "./unstoredWork.ts";

/*
 * The model call itself, for the CallModel task (callModel.ts): the one boundary inside which a
 * failure is the model's own. What resolving a spec or calling the model throws comes out as a
 * model error; a stop during the call stays a stop.
 */

/** Ask the model, saving the text as it streams (checkpoint.ts); the saves end before the response is written. */
export async function askSaving(
  deps: StepDeps,
  input: StepInput,
  facts: LogFacts,
  model: Model,
  request: ModelRequest,
  startedAt: Date,
): Promise<Kept<ModelReply>> {
  const checkpoints = stepCheckpoints(deps, input, facts);
  const onText = (delta: string) => {
    checkpoints.add(delta);
    request.onText?.(delta);
  };
  try {
    return await ask(deps, model, { ...request, onText }, modelDeadline(startedAt, deps.stepTimeoutSeconds));
  } finally {
    await checkpoints.settle();
  }
}

/** The model a spec names; what resolving it throws is the model's failure (an unknown spec, no key). */
export function resolveModel(deps: StepDeps, spec: string): Model {
  try {
    return deps.models(spec);
  } catch (error) {
    throw asModelError(spec, error);
  }
}

/**
 * Call the model: the one boundary inside which a failure is the model's own. A call still under
 * way at `endBy` (epoch ms) is told to end (ModelRequest.deadline), so what it streamed is stored
 * as a cut-off response before the step's function runs out of time, and a resume continues it.
 */
async function ask(
  deps: StepDeps,
  model: Model,
  request: ModelRequest,
  endBy: number,
): Promise<Kept<ModelReply>> {
  deps.faults.reached("model:before");
  // The injected clock, as for the event's `at`: durations and timestamps of a log agree, and a
  // test controls both. A clock set back mid-call would give a negative span: it counts as 0.
  const startedAt = deps.clock.now().getTime();
  const deadline = deadlineSignal(endBy, startedAt);
  let value: ModelReply;
  try {
    value = await model.call({ ...request, deadline: deadline.signal });
  } catch (error) {
    if (deps.signal?.aborted) throw stoppedDuringCall(request.runId, deps.signal.reason);
    throw asModelError(model.spec, error);
  } finally {
    deadline.release();
  }
  return { value, ms: Math.max(0, deps.clock.now().getTime() - startedAt) };
}

/**
 * What a model call throws once its execution was stopped (a cancel) is the stop, not the model
 * failing: this writer must stop (StaleError), and nothing is recorded as a model failure.
 */
function stoppedDuringCall(runId: string, reason: unknown): StaleError {
  if (reason instanceof StaleError) return reason;
  return new StaleError(
    `run ${runId}: the execution was stopped during a model call: ${errorMessage(reason)}`,
    {
      cause: reason,
    },
  );
}

/**
 * What resolving or calling a model threw, as a model error: ModelUnavailableError
 * when it is transient, ModelRejectedError otherwise. A stop (a cancel, a newer
 * generation) stays what it is.
 */
function asModelError(spec: string, error: unknown): unknown {
  if (
    error instanceof ModelUnavailableError ||
    error instanceof ModelRejectedError ||
    error instanceof StaleError
  ) {
    return error;
  }
  const detail = `${spec}: ${error instanceof Error ? `${error.name}: ` : ""}${errorMessage(error)}`;
  if (error instanceof RetryableError) return new ModelUnavailableError(detail, { cause: error });
  return new ModelRejectedError(detail, { cause: error });
}
