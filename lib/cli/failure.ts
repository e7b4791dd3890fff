import { errorFacts, errorMessage, InvalidInputError, RunlogError } from "../core/errors.ts";
import type { Io } from "./io.ts";
import { UsageError } from "./usage.ts";

/**
 * The flags that give each input the library names by its own field (`limits.maxTurns` …). A
 * field several flags make (`modelSettings`, `limits`) is named by those of them the user typed.
 * A field given by an argument, not a flag (a run id, a call id, an input), has no entry.
 */
const FLAGS_OF_FIELD: Readonly<Record<string, readonly string[]>> = {
  atSeq: ["--at"],
  forkId: ["--id"],
  model: ["--model"],
  metadata: ["--metadata"],
  agent: ["--agent"],
  by: ["--by"],
  "actor.by": ["--by"],
  onBehalfOf: ["--by"],
  reason: ["--reason"],
  "actor.reason": ["--reason"],
  idempotencyKey: ["--idempotency-key"],
  parent: ["--forks-of"],
  childrenOf: ["--children-of"],
  status: ["--status"],
  sinceMs: ["--since"],
  staleAfterMs: ["--stale-after"],
  maxAutoResumes: ["--max-resumes"],
  concurrency: ["--concurrency"],
  limits: ["--max-turns", "--max-tokens", "--max-cost-usd"],
  "limits.maxTurns": ["--max-turns"],
  "limits.maxTokens": ["--max-tokens"],
  "limits.maxCostUsd": ["--max-cost-usd"],
  modelSettings: ["--temperature", "--max-output-tokens", "--top-p", "--stop"],
  "modelSettings.temperature": ["--temperature"],
  "modelSettings.maxOutputTokens": ["--max-output-tokens"],
  "modelSettings.topP": ["--top-p"],
  "modelSettings.stopSequences": ["--stop"],
};

/** Fields that a flag gives only on some commands: `runId` is `run --run-id`, elsewhere the argument. */
const FLAGS_OF_COMMAND_FIELD: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  run: { runId: ["--run-id"] },
};

/** The command line a failure came from: its command and the flags it gave (see givenFlags). */
export interface FailedCommand {
  command?: string;
  flags?: readonly string[];
}

/**
 * Print a command's failure, once: `runlog: <message>` on stderr, led by the flag the user typed
 * when the library names bad input by its field and the user typed that flag (`--max-turns:
 * limits.maxTurns must be …`; a message that opens with the field, `model: …`, opens with the
 * flag instead), then its cause
 * when that says more. With `--json`, also `{"error": {code, message, facts}}` on stdout: the
 * error's stable code (`internal` for anything not runlog's own), so a script tells failures
 * apart without reading the words.
 */
export function printFailure(io: Io, error: unknown, json: boolean, failed: FailedCommand = {}): void {
  if (json) {
    io.json({
      error:
        error instanceof RunlogError
          ? { code: error.code, message: error.message, ...errorFacts(error) }
          : { code: "internal", message: errorMessage(error) },
    });
  }
  io.err(`runlog: ${ledByFlag(error, failed)}`);
  const cause = error instanceof Error ? error.cause : undefined;
  // A cause whose words the message already holds (a check that rethrew its own error) says nothing more.
  if (
    cause instanceof Error &&
    !(error instanceof UsageError) &&
    !errorMessage(error).includes(errorMessage(cause))
  )
    io.err(`  cause: ${errorMessage(cause)}`);
}

/** The error's message, led by the flags behind the field it blames (see printFailure). */
export function ledByFlag(error: unknown, { command, flags = [] }: FailedCommand = {}): string {
  const message = errorMessage(error);
  if (!(error instanceof InvalidInputError) || error instanceof UsageError) return message;
  // A message that opens with the field it blames (`model: …`) names it even where `field` is unset.
  const opening = /^([A-Za-z][\w.]*): /.exec(message)?.[1];
  const field = error.field ?? opening;
  if (field === undefined) return message;
  const known = flagsOf(field, command);
  if (known === undefined) return message;
  // A value the user did not type (an agent's own model, a default) is not a flag's fault.
  const typed = known.filter((flag) => flags.includes(flag));
  if (typed.length === 0) return message;
  const named = typed.join(", ");
  if (opening === field) return `${named}: ${message.slice(field.length + 2)}`;
  return known.some((flag) => message.includes(flag)) ? message : `${named}: ${message}`;
}

/** The flags of a field: the whole name, else without its request's prefix (`options.idempotencyKey`). */
function flagsOf(field: string, command: string | undefined): readonly string[] | undefined {
  const own = command === undefined ? undefined : FLAGS_OF_COMMAND_FIELD[command];
  for (const name of [field, field.replace(/^(options|request|actor)\./, "")]) {
    if (own !== undefined && Object.hasOwn(own, name)) return own[name];
    if (Object.hasOwn(FLAGS_OF_FIELD, name)) return FLAGS_OF_FIELD[name];
  }
  return undefined;
}
