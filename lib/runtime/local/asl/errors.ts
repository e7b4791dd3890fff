import { PermanentError, RunlogError, type RunlogErrorOptions } from "../../../core/errors.ts";

/**
 * A definition the interpreter refuses when it is built: a state type, field, comparison or
 * intrinsic it does not support, or a value it cannot take. Refused at build, so an edit of the
 * definition that uses something new fails in the tests, never silently at run time.
 */
export class AslDefinitionError extends PermanentError {
  constructor(
    /** The state, as `Map > State` inside a Map's ItemProcessor; undefined for a top-level field. */
    readonly state: string | undefined,
    /** The field refused, as `Choices[1].Or[0].StringEquals` or `Retry[0].JitterStrategy`. */
    readonly field: string,
    reason: string,
  ) {
    super(
      `state machine definition: ${state === undefined ? "" : `state ${state}, `}field ${field}: ${reason}`,
    );
  }
}

/**
 * An error raised by the interpreter itself under its Step Functions name (`States.Timeout`,
 * `States.NoChoiceMatched` …): its `name` is what Retry and Catch match, so it is not a RunlogError.
 * `States.Runtime` (a path with no value, a wrong type) can be neither retried nor caught, as in Step Functions.
 */
export class StatesError extends Error {
  constructor(name: `States.${string}`, message: string) {
    super(message);
    this.name = name;
  }
}

/** An execution that ended in a failure nothing caught: a Fail state, or a state's error. */
export class ExecutionFailedError extends RunlogError {
  constructor(
    /** The error name, as Step Functions reports it (the thrown error's `name`, or the Fail state's Error). */
    readonly error: string,
    /** The failure's cause as text (the error's message, or the Fail state's Cause). */
    readonly causeText: string,
    options: RunlogErrorOptions = {},
  ) {
    super(`the execution failed: ${error}: ${causeText}`, options);
  }
}

/** An execution ended at the definition's top-level TimeoutSeconds (Step Functions' TIMED_OUT). */
export class ExecutionTimedOutError extends RunlogError {
  constructor(readonly timeoutSeconds: number) {
    super(`the execution timed out after the definition's TimeoutSeconds (${timeoutSeconds} s)`);
  }
}
