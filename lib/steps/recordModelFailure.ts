import { classifyFacts } from "../core/classify.ts";
import { redact } from "../core/redact.ts";
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
        // Stored for good: a credential the provider echoed must not be (core/redact.ts).
        error: { name, message: redact(message) },
        // ModelUnavailableError since the workflow names model errors; RetryableError before.
        retryable: input.error.Error === "ModelUnavailableError" || input.error.Error === "RetryableError",
        ...(facts.model === undefined ? {} : { model: facts.model }),
      },
      result: () => ({ recorded: true }),
    };
  });
}

/**
 * The original error's name and message from the Catch's Cause: "ModelRejectedError: bad key" as
 * the local runtime hands it, or, from a Lambda task on AWS, the function's error payload as JSON
 * whose `errorMessage` holds that text (`errorType` is only the category the workflow matched).
 */
function parseCause(error: RecordFailureInput["error"]): { name: string; message: string } {
  const cause = lambdaErrorMessage(error.Cause) ?? error.Cause ?? "";
  const match = /^([A-Za-z][\w.]*): ([\s\S]*)$/.exec(cause);
  return match
    ? { name: match[1]!, message: match[2]! }
    : { name: error.Error, message: cause || error.Error };
}

/** The `errorMessage` of a Lambda error payload (`{"errorType", "errorMessage", "trace"}`), if that is what `cause` is. */
function lambdaErrorMessage(cause: string | undefined): string | undefined {
  if (!cause?.startsWith("{")) return undefined;
  const payload = parseJson(cause);
  const message =
    payload && typeof payload === "object" ? (payload as Record<string, unknown>).errorMessage : undefined;
  return typeof message === "string" ? message : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    // A Cause that only looks like JSON is kept as text: it is still the failure's own words.
    return undefined;
  }
}
