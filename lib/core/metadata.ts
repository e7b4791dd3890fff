import * as z from "zod";
import { InvalidInputError } from "./errors.ts";
import { givenJsonBytes } from "./utf8.ts";
import { WITHOUT_JIT } from "./withoutJit.ts";

/**
 * The most a run's `metadata` may hold, as JSON text in UTF-8. It rides on every lifecycle event
 * of the run (an EventBridge entry holds 256 KB, a run's output needs the room) and in
 * `run_started`: a caller's correlation ids and labels, not a payload.
 */
export const MAX_METADATA_BYTES = 2048;

/** A JSON value, as metadata holds it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A caller's own data on a run: a JSON object, echoed back on every lifecycle event of the run. */
export type Metadata = { [key: string]: JsonValue };

/** Any JSON value: one instance, so the OpenAPI document names it once (JsonValue). */
export const JsonValueSchema = z.json();

/** Metadata as stored in `run_started`: any JSON object (the cap is checked where it comes in). */
export const MetadataSchema: z.ZodType<Metadata> = z.record(
  z.string(),
  JsonValueSchema,
) as z.ZodType<Metadata>;

const kindOf = (value: unknown) =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;

/** What is wrong with a value given as metadata, in words; undefined when it is fine. */
export function metadataProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `expected a JSON object, got ${kindOf(value)}`;
  }
  const parsed = MetadataSchema.safeParse(value, WITHOUT_JIT);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `at ${issue.path.join(".")}: ` : "";
    return `${where}expected only JSON values (strings, finite numbers, booleans, null, arrays, objects)`;
  }
  const bytes = givenJsonBytes(value);
  if (typeof bytes !== "number") {
    return `expected only JSON values, and it cannot be written as JSON: ${bytes.problem}`;
  }
  if (bytes > MAX_METADATA_BYTES) {
    return `is ${bytes} bytes as JSON, over the ${MAX_METADATA_BYTES} a run's metadata may hold`;
  }
  return undefined;
}

/** Metadata as a caller gave it, checked: a JSON object of at most MAX_METADATA_BYTES, or an InvalidInputError naming `field`. */
export function checkMetadata(value: unknown, field = "metadata"): Metadata {
  const problem = metadataProblem(value);
  if (problem !== undefined) throw new InvalidInputError(`${field}: ${problem}`, { field });
  return value as Metadata;
}
