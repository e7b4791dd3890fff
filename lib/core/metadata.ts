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

/**
 * How deep arrays and objects may nest in a caller's JSON value (metadata, providerOptions, an
 * event's output), the value itself counting as one: far above any real use, and far below the
 * depth at which a recursive parse (zod's, a serializer's) runs out of stack.
 */
export const MAX_JSON_DEPTH = 64;

/** A key a parse into a plain object cannot keep (it sets the prototype): refused, never dropped. */
const PROTO_KEY = "__proto__";

type Path = (string | number)[];

/** Where a value sits in the walk: its parent's entry and its key, so a path is built only when needed. */
interface Visit {
  value: unknown;
  depth: number;
  key?: string | number;
  parent?: Visit;
}

const pathOf = (visit: Visit | undefined): Path => {
  const path: Path = [];
  for (let at = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
};

/** Whether the visited value is also one of its own containers (a program's object can be). */
const holdsItself = (visit: Visit): boolean => {
  for (let at = visit.parent; at !== undefined; at = at.parent) if (at.value === visit.value) return true;
  return false;
};

/**
 * What is wrong with a JSON value's shape, found without recursion so a value of any depth is
 * answered: arrays and objects nested deeper than MAX_JSON_DEPTH, or an object key `__proto__`.
 * `path` leads to the offending key (for depth, the first key under the value, so it names the
 * field without a path as long as the nesting).
 */
export function jsonShapeProblem(value: unknown): { path: Path; message: string } | undefined {
  const stack: Visit[] = [{ value, depth: 1 }];
  // A value a program built may share one object: each is walked again only deeper.
  const walked = new Map<object, number>();
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    const { value: here, depth } = visit;
    if (typeof here !== "object" || here === null) continue;
    if ((walked.get(here) ?? 0) >= depth) continue;
    walked.set(here, depth);
    // A value that holds itself is not JSON at all; the checks after this one say so.
    if (holdsItself(visit)) return undefined;
    if (depth > MAX_JSON_DEPTH) {
      return {
        path: pathOf(visit).slice(0, 1),
        message: `arrays and objects are nested more than ${MAX_JSON_DEPTH} levels deep`,
      };
    }
    if (Array.isArray(here)) {
      here.forEach((item, index) => {
        stack.push({ value: item, depth: depth + 1, key: index, parent: visit });
      });
      continue;
    }
    for (const key of Object.keys(here)) {
      if (key === PROTO_KEY) {
        return {
          path: [...pathOf(visit), key],
          message: `the key ${JSON.stringify(PROTO_KEY)} is refused: an object parsed from JSON cannot keep it as data`,
        };
      }
      stack.push({ value: (here as Record<string, unknown>)[key], depth: depth + 1, key, parent: visit });
    }
  }
  return undefined;
}

/**
 * A schema of JSON values behind the shape check: a problem is an issue at its path, and the
 * (recursive) schema never sees such a value. Input JSON Schema is the inner schema's.
 */
const shapeChecked = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value, ctx) => {
    const problem = jsonShapeProblem(value);
    if (problem !== undefined) {
      ctx.issues.push({ code: "custom", message: problem.message, input: value, path: problem.path });
    }
    return value;
  }, schema);

/** Any JSON value, its shape checked first: one instance, so the OpenAPI document names it once (JsonValue). */
export const JsonValueSchema = shapeChecked(z.json());

/** A JSON object of JSON values (metadata, providerOptions), its shape checked first. */
export const jsonObjectSchema = () => shapeChecked(z.record(z.string(), JsonValueSchema));

/** Metadata as stored in `run_started`: any JSON object (the cap is checked where it comes in). */
export const MetadataSchema: z.ZodType<Metadata> = jsonObjectSchema() as z.ZodType<Metadata>;

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
    // The shape check's own words (too deep, `__proto__`); else the value is not JSON.
    if (issue?.code === "custom") return `${where}${issue.message}`;
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
