/**
 * Checks of what a program passes to Runlog. TypeScript callers cannot pass the wrong shape, but
 * JavaScript callers can: each public method checks its arguments first, so a missing or
 * ill-typed one is an InvalidInputError naming it (its `field`) and what was expected, before
 * anything is read or written, never a TypeError from deep inside a step.
 *
 * These are the checks of shapes, which reading runs needs; the checks of what starts or steers a
 * run, whose rules are the core's zod schemas, are validateOptions.ts (so a read loads no zod).
 */
import { InvalidInputError } from "../core/errors.ts";
import { validateRunId } from "../core/ids.ts";
import { RUN_STATUSES, type RunStatus } from "../core/status.ts";

/** The value as a message shows it: short, and never the whole of a long string. */
function shown(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return typeof value;
}

/** The error for a `field` that is not what it should be: what was expected, and what came. */
export const invalid = (field: string, expected: string, value: unknown) =>
  new InvalidInputError(`${field}: expected ${expected}, got ${shown(value)}`, { field });

/** An object of named fields (a request, an actor, options). */
export function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(field, "an object", value);
  }
  return value as Record<string, unknown>;
}

/** A string with something in it besides spaces. */
export function text(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(field, "a non-empty string", value);
  return value;
}

/** As text, or absent (undefined). */
export function optionalText(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : text(value, field);
}

/** A string, possibly empty, or absent. */
export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : string(value, field);
}

/** A string, possibly empty. */
export function string(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalid(field, "a string", value);
  return value;
}

/** A run id: a string of the characters a run id may hold (the one rule, validateRunId's). */
export function runId(value: unknown, field = "runId", what = "run id"): string {
  if (typeof value !== "string") throw invalid(field, `a ${what} (a string)`, value);
  try {
    return validateRunId(value, what);
  } catch (error) {
    throw new InvalidInputError((error as Error).message, { field, cause: error });
  }
}

/** As runId, or absent. */
export function optionalRunId(value: unknown, field: string, what = "run id"): string | undefined {
  return value === undefined ? undefined : runId(value, field, what);
}

/** A number (its range is the step's to check, which knows it), or absent. */
export function optionalNumber(value: unknown, field: string): number | undefined {
  if (value !== undefined && (typeof value !== "number" || Number.isNaN(value))) {
    throw invalid(field, "a number", value);
  }
  return value;
}

/** A boolean, or absent. */
export function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value !== undefined && typeof value !== "boolean") throw invalid(field, "true or false", value);
  return value;
}

/** A function, or absent. */
export function optionalFunction(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== "function") throw invalid(field, "a function", value);
}

/** A whole number of at least `min`, or absent. */
export function optionalInteger(value: unknown, field: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw invalid(field, `an integer >= ${min}`, value);
  }
  return value;
}

/** One status, or a list of them (as list's `status` takes), or absent. */
export function optionalStatuses(value: unknown, field: string, list: "one or more" | "list") {
  if (value === undefined) return;
  const known = (status: unknown): status is RunStatus => RUN_STATUSES.includes(status as RunStatus);
  const expected = `${list === "list" ? "a list" : "a status or a list"} of ${RUN_STATUSES.join(", ")}`;
  if (list === "one or more" && known(value)) return;
  if (!Array.isArray(value) || !value.every(known)) throw invalid(field, expected, value);
}

/** Who decides or cancels: `{ by, reason? }`. */
export function actor(value: unknown): { by: string; onBehalfOf?: string; reason?: string } {
  const given = object(value, "actor");
  const by = text(given.by, "actor.by");
  const onBehalfOf = optionalText(given.onBehalfOf, "actor.onBehalfOf");
  const reason = optionalString(given.reason, "actor.reason");
  return {
    by,
    ...(onBehalfOf === undefined ? {} : { onBehalfOf }),
    ...(reason === undefined ? {} : { reason }),
  };
}

/** An owner: `{ id, tenant? }`, or absent. */
export function optionalOwner(value: unknown, field: string): { id: string; tenant?: string } | undefined {
  if (value === undefined) return undefined;
  const given = object(value, field);
  const id = text(given.id, `${field}.id`);
  const tenant = optionalText(given.tenant, `${field}.tenant`);
  return tenant === undefined ? { id } : { id, tenant };
}
