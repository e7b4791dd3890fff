import { errorFacts, errorMessage, InvalidInputError, RunlogError } from "../core/errors.ts";
import type { Io } from "./io.ts";
import { UsageError } from "./usage.ts";

/** The flag that gives each input the library names by its own field (`limits.maxTurns` …). */
const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  atSeq: "--at",
  forkId: "--id",
  model: "--model",
  metadata: "--metadata",
  "actor.by": "--by",
  "limits.maxTurns": "--max-turns",
  "limits.maxTokens": "--max-tokens",
  "limits.maxCostUsd": "--max-cost-usd",
  "modelSettings.temperature": "--temperature",
  "modelSettings.maxOutputTokens": "--max-output-tokens",
  "modelSettings.topP": "--top-p",
  "modelSettings.stopSequences": "--stop",
};

/**
 * Print a command's failure, once: `runlog: <message>` on stderr, led by the flag the user typed
 * when the library names bad input by its field (`--max-turns: limits.maxTurns must be …`), then
 * its cause when that says more. With `--json`, also `{"error": {code, message, facts}}` on stdout:
 * the error's stable code (`internal` for anything not runlog's own), so a script tells failures
 * apart without reading the words.
 */
export function printFailure(io: Io, error: unknown, json: boolean): void {
  if (json) {
    io.json({
      error:
        error instanceof RunlogError
          ? { code: error.code, message: error.message, ...errorFacts(error) }
          : { code: "internal", message: errorMessage(error) },
    });
  }
  io.err(`runlog: ${flagOf(error)}${errorMessage(error)}`);
  const cause = error instanceof Error ? error.cause : undefined;
  // A cause whose words the message already holds (a check that rethrew its own error) says nothing more.
  if (
    cause instanceof Error &&
    !(error instanceof UsageError) &&
    !errorMessage(error).includes(errorMessage(cause))
  )
    io.err(`  cause: ${errorMessage(cause)}`);
}

function flagOf(error: unknown): string {
  const field = error instanceof InvalidInputError ? error.field : undefined;
  const flag = field === undefined || !Object.hasOwn(FLAG_OF_FIELD, field) ? undefined : FLAG_OF_FIELD[field];
  return flag === undefined || errorMessage(error).includes(flag) ? "" : `${flag}: `;
}
