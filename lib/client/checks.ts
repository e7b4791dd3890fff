import { InvalidInputError } from "../core/errors.ts";
import { validateRunId } from "../core/ids.ts";

/**
 * The client's own checks of what a call from plain JavaScript passes: what the server checks
 * (a request's fields) is left to it, and comes back as an InvalidInputError naming the field;
 * what never reaches the server as that field (options, the actor's shape, the path's parts) is
 * checked here, so a wrong type is an InvalidInputError naming it, never a TypeError or a value
 * sent as something else.
 */

const invalid = (field: string, expected: string, value: unknown) =>
  new InvalidInputError(`${field}: expected ${expected}, got ${describe(value)}`, { field });

const describe = (value: unknown) =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "string"
        ? "a string"
        : typeof value;

/** A string argument, or InvalidInputError naming it: checked here so that it cannot change the path it goes into. */
export function text(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(field, "a non-empty string", value);
  return value;
}

/** A run id, by the rule the server checks it with (validateRunId), or InvalidInputError naming `field`. */
export function runId(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalid(field, "a run id (a string)", value);
  try {
    return validateRunId(value, field);
  } catch (error) {
    throw new InvalidInputError((error as Error).message, { field, cause: error });
  }
}

/** An object argument (a request, options), or `{}` when it is left out. */
export function optionalObject<T extends object>(value: T | undefined, field: string): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalid(field, "an object", value);
  return value;
}

function optionalField(value: unknown, field: string, type: "string" | "function"): void {
  if (value !== undefined && typeof value !== type) throw invalid(field, `a ${type}`, value);
}

/** A call's options: `signal`, and `idempotencyKey` on a call that changes a run (its form is the server's to check). */
export function callOptions<T extends { signal?: AbortSignal; idempotencyKey?: string }>(
  value: T | undefined,
  field = "options",
): Partial<T> {
  const options = optionalObject(value, field);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    throw invalid(`${field}.signal`, "an AbortSignal", options.signal);
  optionalField(options.idempotencyKey, `${field}.idempotencyKey`, "string");
  return options;
}

/** Whom a decision or cancel is for and why: an object whose `by` and `reason` are strings when given. */
export function actor<T extends { by?: string; reason?: string }>(value: T | undefined): Partial<T> {
  const given = optionalObject(value, "actor");
  optionalField(given.by, "actor.by", "string");
  optionalField(given.reason, "actor.reason", "string");
  return given;
}

/** A seq a read starts after: a whole number from 0. */
export function afterSeq(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
    throw invalid(field, "a whole number from 0", value);
  return value;
}

/** A callback option, when given. */
export function optionalCallback(value: unknown, field: string): void {
  optionalField(value, field, "function");
}

/** A required object argument (a request). */
export function object<T extends object>(value: T | undefined, field: string): Partial<T> {
  if (value === undefined) throw invalid(field, "an object", value);
  return optionalObject(value, field);
}

/** A streaming call's options: `signal`, a callback, and where to start. */
export function streamOptions<T extends { signal?: AbortSignal; after?: number | string }>(
  value: T | undefined,
  callbacks: readonly string[],
): Partial<T> {
  const options = callOptions(value);
  for (const name of callbacks)
    optionalCallback((options as Record<string, unknown>)[name], `options.${name}`);
  return options;
}
