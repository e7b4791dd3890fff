import { redact } from "./redact.ts";

/**
 * runlog's error family. Every error says what kind of failure it is, because the
 * state machine's Retry and Catch match on these four category names
 * (see lib/workflow/errors.ts) and callers decide by kind, not by message.
 */
/** The facts an error carries besides its message, where they apply. */
export interface ErrorFacts {
  /** The run the failure is about. */
  runId?: string;
  /** The sequence number the failure is about (a seq taken, a corrupt event). */
  seq?: number;
  /** The generation the failure is about (the one that owns the run, or the stale one). */
  generation?: number;
}

/** What a RunlogError is made with: its cause and its facts. */
export interface RunlogErrorOptions extends ErrorFacts {
  cause?: unknown;
}

/** `LeaseHeldError` -> `lease_held`: a stable code for each class, for callers and HTTP answers. */
const codeOf = (name: string) =>
  name
    .replace(/Error$/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase();

/** The base of every error runlog throws: a stable `code`, and the facts it is about as fields. */
export class RunlogError extends Error {
  /** What kind of failure this is, stable across releases (`not_found`, `lease_held` …). */
  readonly code: string;
  // Declared, not defined: an error without a fact has no such property at all.
  /** The run the failure is about, where there is one. */
  declare readonly runId?: string;
  /** The sequence number the failure is about, where there is one. */
  declare readonly seq?: number;
  /** The generation the failure is about, where there is one. */
  declare readonly generation?: number;

  constructor(message: string, options: RunlogErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = codeOf(new.target.name);
    const facts = this as { runId?: string; seq?: number; generation?: number };
    if (options.runId !== undefined) facts.runId = options.runId;
    if (options.seq !== undefined) facts.seq = options.seq;
    if (options.generation !== undefined) facts.generation = options.generation;
  }
}

/** Transient: throttling, a 5xx, a timeout or a dropped connection. Trying again may work. */
export class RetryableError extends RunlogError {}

/** Bad input, an unknown run or agent, a rejected credential: trying again will not help. */
export class PermanentError extends RunlogError {}

/** Someone else already wrote that sequence number or holds that resource. */
export class ConflictError extends RunlogError {}

/** A newer generation owns the run (or it was cancelled): this writer must stop. */
export class StaleError extends RunlogError {}

/** The run was cancelled: whoever was working on it stops without writing more. */
export class RunCancelledError extends StaleError {}

/** What an InvalidInputError is made with: RunlogErrorOptions and the field to blame. */
export interface InvalidInputOptions extends RunlogErrorOptions {
  /** The input that was wrong (`runId`, `actor.by`, `limit` …). */
  field?: string;
}

/** Input that cannot work; `field` names it where one input is to blame. */
export class InvalidInputError extends PermanentError {
  /** The input that was wrong, where one input is to blame. */
  declare readonly field?: string;

  constructor(message: string, options: InvalidInputOptions = {}) {
    const { field, ...rest } = options;
    super(message, rest);
    if (field !== undefined) (this as { field?: string }).field = field;
  }
}
/** A model spec the deployment (or the way the run was asked for) does not allow; `allowed` lists the patterns that would pass. */
export class ModelNotAllowedError extends InvalidInputError {
  constructor(
    readonly spec: string,
    readonly allowed: readonly string[],
    where: string,
  ) {
    super(
      `model ${JSON.stringify(spec)} is not allowed ${where}: allowed are ${allowed.map((p) => JSON.stringify(p)).join(", ")}`,
      { field: "model" },
    );
  }
}

/** A model spec whose prefix no provider serves; `prefixes` lists those that are served (built in and added). */
export class UnknownModelError extends InvalidInputError {
  constructor(
    readonly spec: string,
    readonly prefixes: readonly string[],
  ) {
    super(
      `unknown model ${JSON.stringify(spec)}: no provider serves its prefix; known prefixes are ${prefixes.map((p) => `${p}:`).join(", ")} (e.g. openai:gpt-4.1-mini, scripted:demo)`,
      { field: "model" },
    );
  }
}

/** An unknown run, event, agent or call. */
export class NotFoundError extends PermanentError {}

/** A stored event that cannot be decoded: unknown schema version, invalid JSON, wrong shape. */
export class CorruptEventError extends PermanentError {
  /** The run whose log holds the event. */
  declare readonly runId: string;
  /** The corrupt event's seq. */
  declare readonly seq: number;

  constructor(runId: string, seq: number, detail: string) {
    super(`run ${runId}: stored event at seq ${seq} is corrupt: ${detail}`, { runId, seq });
  }
}

/**
 * A caller-chosen id (a run id, a fork id) already names a different run. The
 * caller's choice is what is wrong, so trying again will not help; `differences`
 * says what sets the two apart.
 */
export class IdTakenError extends ConflictError {
  constructor(
    /** The id that is taken. */
    readonly id: string,
    /** What sets the stored run apart from the one asked for (`input "a", not "b"` …). */
    readonly differences: readonly string[],
    message: string,
    options?: RunlogErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The store lacks an index a query needs: a table made by an older runlog, before the index
 * existed (DynamoDB's byParent). Everything else the store does still works.
 */
export class MissingIndexError extends PermanentError {
  constructor(
    /** The table that lacks the index. */
    readonly tableName: string,
    /** The index it lacks. */
    readonly index: string,
    message: string,
    options?: RunlogErrorOptions,
  ) {
    super(message, options);
  }
}

/** The run is being executed by a live holder; a second executor must not start. */
export class LeaseHeldError extends ConflictError {}

/** A model call failed in a way that retrying may fix (connection, 429, 5xx, timeout). */
export class ModelUnavailableError extends RetryableError {}

/**
 * An MCP server could not be reached, or its connection failed mid-call (lib/adapters/mcp): trying
 * again may work. Before a call starts it fails the step, which is retried, so the call runs once
 * the server is back; after, the call is answered as any interrupted call is.
 */
export class McpUnavailableError extends RetryableError {
  /** The server's name in the agent's `mcp` list. */
  readonly server: string;

  constructor(server: string, message: string, options: RunlogErrorOptions = {}) {
    super(message, options);
    this.server = server;
  }
}

/** A model call that will fail again the same way (bad key, unknown model, bad request). */
export class ModelRejectedError extends PermanentError {}

/** The four kinds of failure, by the names the state machine's Retry and Catch match. */
export type ErrorCategory = "RetryableError" | "PermanentError" | "ConflictError" | "StaleError";

/** The category of any thrown value; unknown errors count as permanent so they are never retried blindly. */
export function errorCategory(error: unknown): ErrorCategory {
  if (error instanceof RetryableError) return "RetryableError";
  if (error instanceof ConflictError) return "ConflictError";
  if (error instanceof StaleError) return "StaleError";
  return "PermanentError";
}

/** Why a request that came in (an event, a redelivery, a sweep) found nothing to do. */
export type BenignReason = "running" | "cancelled" | "superseded";

/**
 * Whether an error of a start, resume or recovery is the answer rather than a failure: the run
 * is being executed by someone else (a resume of a running run, a duplicate delivery, a sweep
 * meeting a resume), was cancelled, or a newer generation owns it. Retrying changes none of
 * these: the sweep skips such a run, and a function answers the event (nothing goes to the
 * dead-letter queue). A caller-chosen id naming another run (IdTakenError, a ConflictError but no
 * LeaseHeldError) is the caller's mistake: it stays an error.
 */
export function benignReason(error: unknown): BenignReason | undefined {
  if (error instanceof LeaseHeldError) return "running";
  if (error instanceof RunCancelledError) return "cancelled";
  if (error instanceof StaleError) return "superseded";
  return undefined;
}

/** The facts a runlog error carries (its field too, for bad input), absent ones left out: what an answer shows beside its code. */
export function errorFacts(error: RunlogError): ErrorFacts & { field?: string; cap?: number } {
  return {
    ...(error instanceof InvalidInputError && error.field !== undefined ? { field: error.field } : {}),
    // A 429's cap, as the HTTP API gives it: the runs one owner may have running at once.
    ...(error instanceof TooManyRunsError ? { cap: error.cap } : {}),
    ...(error.runId === undefined ? {} : { runId: error.runId }),
    ...(error.seq === undefined ? {} : { seq: error.seq }),
    ...(error.generation === undefined ? {} : { generation: error.generation }),
  };
}

/** What an error says, redacted (core/redact.ts): the one way an error's words are stored or shown. */
export function errorMessage(error: unknown): string {
  return redact(error instanceof Error ? error.message : String(error));
}

/** The caller may not do this at all (sweep and redrive are an admin's); another owner's run is a NotFoundError instead. */
export class ForbiddenError extends PermanentError {}

/**
 * An owner already has as many runs running as the deployment's per-owner cap allows: a start
 * is refused until one of them ends. Retryable: the same start later may be taken.
 */
export class TooManyRunsError extends RetryableError {
  constructor(
    /** The owner scope at its cap (core/principal.ts `ownerScope`). */
    readonly ownerScope: string,
    /** The cap: runs one owner may have running at once. */
    readonly cap: number,
    options?: RunlogErrorOptions,
  ) {
    super(
      `${ownerScope} already has ${cap} runs running, the most one owner may have at once ` +
        "(the deployment's per-owner cap); start again when one of them ends",
      options,
    );
  }
}

/**
 * An idempotency key given again with a different request: the same key on the same run must
 * mean the same operation (send, fork, decision, cancel). The caller's mistake, so trying again
 * will not help; `key` is the key, `differences` what sets the two requests apart.
 */
export class IdempotencyKeyReusedError extends ConflictError {
  constructor(
    /** The key given twice. */
    readonly key: string,
    /** What sets the recorded request apart from this one (`input "a", not "b"` …). */
    readonly differences: readonly string[],
    options: RunlogErrorOptions & { runId: string },
  ) {
    super(
      `idempotency key ${JSON.stringify(key)} was used on run ${options.runId} for a different request (${differences.join("; ")})`,
      options,
    );
  }
}

/**
 * The request carries no identity the API accepts (no token, a wrong one, an unsigned request):
 * HTTP 401. Permanent: the same request fails again until its credentials change.
 */
export class UnauthorizedError extends PermanentError {}
