/*
 * The small pieces the typed calls build their requests from: an encoded path segment, an optional
 * query or body field, and the Idempotency-Key a call without one is sent with.
 */
import { InvalidInputError } from "../core/errors.ts";
import { runId, text } from "./checks.ts";

/**
 * A path segment (a call id, a batch id), encoded; `.` and `..` are refused, since a URL resolves
 * them (`/runs/r1/approvals/..` is sent as `/runs/r1/`), so the request would go to another route.
 */
export function segment(value: unknown, field: string): string {
  const given = text(value, field);
  if (given === "." || given === "..") {
    throw new InvalidInputError(
      `${field}: ${JSON.stringify(given)} cannot be a path segment (a URL resolves it), so it names nothing`,
      { field },
    );
  }
  return encodeURIComponent(given);
}

/** A run id as a path segment: checked by the server's own rule (validateRunId), so `.`, `..` and `a/b` never leave. */
export const runSegment = (value: unknown, field = "runId") => encodeURIComponent(runId(value, field));

/** Spread `{key: value}` only when the value is present. */
export const present = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** A fresh Idempotency-Key for a call that has none: one per call, the same on each of its attempts. */
export const newKey = () => globalThis.crypto.randomUUID();
