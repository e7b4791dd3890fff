import { classifyFacts } from "../core/classify.ts";
import { beginsExecution } from "./callModel.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { nextAction } from "./nextAction.ts";
import { writeNext } from "./writeNext.ts";

export interface RecordFailureInput extends StepInput {
  /** The error as Step Functions hands it to a Catch: category name, and "OriginalName: message". */
  error: { Error: string; Cause?: string };
}

/**
 * After the workflow's retries of CallModel are spent: append `model_failed`
 * so the log ends at the input that led to the failure and resume can call the
 * model again in place. A retried record does not write twice.
 */
export async function recordModelFailure(
  deps: StepDeps,
  input: RecordFailureInput,
): Promise<{ recorded: boolean }> {
  const { name, message } = parseCause(input.error);
  return writeNext<{ recorded: boolean }>(deps, input.runId, input.generation, (events, facts) => {
    const last = events.at(-1);
    // Waiting for the model as CallModel judged it: a response of this generation that ended the
    // execution (cut off, truncated) is not waiting, so no failure is recorded after it.
    const waitingForModel = nextAction(classifyFacts(facts), beginsExecution(facts)).action === "model";
    if (!waitingForModel || last?.type === "model_failed") return { done: { recorded: false } };
    return {
      append: {
        type: "model_failed",
        error: { name, message },
        // ModelUnavailableError since the workflow names model errors; RetryableError before.
        retryable: input.error.Error === "ModelUnavailableError" || input.error.Error === "RetryableError",
        ...(facts.model === undefined ? {} : { model: facts.model }),
      },
      result: () => ({ recorded: true }),
    };
  });
}

/** Split "ModelRejectedError: bad key" back into the original error's name and message. */
function parseCause(error: RecordFailureInput["error"]): { name: string; message: string } {
  const cause = error.Cause ?? "";
  const match = /^([A-Za-z][\w.]*): ([\s\S]*)$/.exec(cause);
  return match
    ? { name: match[1]!, message: match[2]! }
    : { name: error.Error, message: cause || error.Error };
}
