/**
 * The shapes configuration values take (numbers, URLs, lists, ARNs, crash points) and what a
 * variable is (how it is read, its default, its docs): the parts configSchema.ts's one table is
 * built from. Plain functions, not zod: every CLI command reads the configuration first, and
 * `runlog ls` should not load a schema library to read a dozen variables (BENCHMARKS.md).
 */
import {
  CONTROL_CRASH_POINTS,
  CRASH_POINTS,
  type CrashPoint,
  HANDOFF_CRASH_POINTS,
  SUBAGENT_CRASH_POINTS,
  TRANSFER_CRASH_POINTS,
} from "../ports/runtime.ts";

/** Who reads a variable: the local runtime and CLI, the Lambda handlers, or both. */
export type ReadBy = "local/CLI" | "Lambda handlers" | "both";

/** What docs/reference/configuration.md says of a variable, kept beside how it is read. */
export interface VariableDoc {
  readBy: ReadBy;
  /** The default in words ("unset" when there is none). */
  default: string;
  /** What a value may be: the error for a bad one says this. */
  allowed: string;
  /** Its value is never shown, in an error or anywhere else. */
  secret?: true;
}

/**
 * A variable: how its text is read (its value, or undefined when the text is not allowed), the
 * value it has when unset (if any), and its docs.
 */
export interface Variable<T, Defaulted extends boolean = boolean> {
  read: (text: string) => T | undefined;
  fallback: Defaulted extends true ? T : undefined;
  doc: VariableDoc;
}

/** A variable that is undefined when unset. */
export const optional = <T>(read: (text: string) => T | undefined, doc: VariableDoc): Variable<T, false> => ({
  read,
  fallback: undefined,
  doc,
});

/** A variable that is `fallback` when unset. */
export const withDefault = <T>(
  read: (text: string) => T | undefined,
  fallback: T,
  doc: VariableDoc,
): Variable<T, true> => ({ read, fallback, doc });

/** The values of a table of variables: those with a default always there, the others optional. */
export type ValuesOf<Table extends Record<string, Variable<unknown>>> = {
  [F in keyof Table as Table[F] extends Variable<unknown, true> ? F : never]: Table[F] extends Variable<
    infer T,
    true
  >
    ? T
    : never;
} & {
  [F in keyof Table as Table[F] extends Variable<unknown, true> ? never : F]?:
    | (Table[F] extends Variable<infer T, false> ? T : never)
    | undefined;
};

/** Text that matches `rule` (the rule in words is the variable's `allowed`). */
export const pattern =
  (rule: RegExp) =>
  (value: string): string | undefined =>
    rule.test(value) ? value : undefined;

/** Any text. */
export const text = (value: string): string => value;
/** A whole number written in digits, from `min` to `max`. */
export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number | undefined => {
    if (!/^\d+$/.test(value)) return undefined;
    const number = Number(value);
    return number >= min && number <= max ? number : undefined;
  };
/** A number above 0, as `30` or `0.5` (spaces around it allowed). */
export const positiveNumber = (value: string): number | undefined =>
  /^\s*\d*\.?\d+\s*$/.test(value) && Number(value) > 0 ? Number(value) : undefined;
/** A number parsed, kept when it is not above `max`. */
export const atMost = (value: number | undefined, max: number): number | undefined =>
  value !== undefined && value <= max ? value : undefined;
/** Text without spaces or line breaks (a claim name, a scope). */
export const noSpaces = pattern(/^\S+$/);
/** A header value: a key pasted with a line break or a space in it would fail every call. */
export const credential = noSpaces;
export const httpUrl = (value: string): string | undefined => {
  if (!URL.canParse(value)) return undefined;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:" ? value : undefined;
};
/**
 * An AWS region's name: lowercase letters and digits in dash-separated words (us-east-1,
 * us-gov-west-1, cn-north-1; `local` for a DynamoDB-compatible server), so a region AWS adds later
 * passes and a typo such as `us east 1` or `US-EAST-1` does not.
 */
export const regionName = pattern(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
/** An ARN (`arn:…`). */
export const arn = (value: string): string | undefined => (value.startsWith("arn:") ? value : undefined);
/** Comma-separated values, each trimmed, each one `item` allows. */
const listOf =
  (item: (value: string) => boolean) =>
  (value: string): string[] | undefined => {
    const items = value.split(",").map((part) => part.trim());
    return items.every(item) ? items : undefined;
  };
/** Lambda function ARNs, comma-separated, without a version or alias: the ones a dead letter may be sent back to. */
export const functionArns = listOf((arn) => /^arn:[\w-]+:lambda:[\w-]+:\d{12}:function:[\w-]+$/.test(arn));
/** Comma-separated values, each trimmed, none empty: allow-list patterns, claim values, event sources. */
export const list = listOf((item) => item.length > 0);
/** DynamoDB's rule for table names. */
export const tableName = pattern(/^[A-Za-z0-9_.-]{3,255}$/);
/** One of `values`. */
export const oneOf =
  <const V extends string>(...values: V[]) =>
  (value: string): V | undefined =>
    (values as string[]).includes(value) ? (value as V) : undefined;

export const KNOWN_CRASH_POINTS: readonly CrashPoint[] = [
  ...CRASH_POINTS,
  ...HANDOFF_CRASH_POINTS,
  ...TRANSFER_CRASH_POINTS,
  ...CONTROL_CRASH_POINTS,
  ...SUBAGENT_CRASH_POINTS,
];
/** `<point>[@<n>]`: the n-th time (default the first) execution passes that point. */
export interface CrashAt {
  point: CrashPoint;
  nth: number;
}
export const crashAt = (value: string): CrashAt | undefined => {
  const match = /^([a-z]+:[a-z-]+)(?:@(\d+))?$/.exec(value);
  const point = match?.[1] as CrashPoint | undefined;
  const nth = match?.[2] === undefined ? 1 : Number(match[2]);
  return point && KNOWN_CRASH_POINTS.includes(point) && nth >= 1 ? { point, nth } : undefined;
};

export const LOCAL = "local/CLI";
export const HANDLERS = "Lambda handlers";
