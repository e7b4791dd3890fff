/**
 * The shapes configuration values take (numbers, URLs, lists, ARNs, crash points) and the docs
 * registry each variable's schema is kept in: the parts configSchema.ts's one schema is built from.
 */
import * as z from "zod";
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

/** What docs/reference/configuration.md says of a variable, kept beside its schema. */
export interface VariableDoc {
  readBy: ReadBy;
  /** The default in words ("unset" when there is none). */
  default: string;
  /** What a value may be: the error for a bad one says this. */
  allowed: string;
  /** Its value is never shown, in an error or anywhere else. */
  secret?: true;
}

/** The docs of every variable, by its schema field. */
export const VARIABLE_DOCS = z.registry<VariableDoc, z.ZodType>();

export const text = z.string();
export const wholeNumber = (min: number) =>
  z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(min).max(Number.MAX_SAFE_INTEGER));
export const positiveNumber = z
  .string()
  .refine((value) => /^\s*\d*\.?\d+\s*$/.test(value) && Number(value) > 0)
  .transform(Number);
/** A header value: a key pasted with a line break or a space in it would fail every call. */
export const credential = z.string().regex(/^\S+$/);
export const httpUrl = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
});
/** Lambda function ARNs, comma-separated, without a version or alias: the ones a dead letter may be sent back to. */
export const functionArns = z
  .string()
  .transform((value) => value.split(",").map((arn) => arn.trim()))
  .pipe(z.array(z.string().regex(/^arn:[\w-]+:lambda:[\w-]+:\d{12}:function:[\w-]+$/)).min(1));
/** Comma-separated values, each trimmed, none empty: allow-list patterns, claim values, event sources. */
export const list = z
  .string()
  .transform((value) => value.split(",").map((item) => item.trim()))
  .pipe(z.array(z.string().min(1)).min(1));
/** DynamoDB's rule for table names. */
export const tableName = z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/);

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
export const crashAt = z.string().transform((value, context): CrashAt => {
  const match = /^([a-z]+:[a-z-]+)(?:@(\d+))?$/.exec(value);
  const point = match?.[1] as CrashPoint | undefined;
  const nth = match?.[2] === undefined ? 1 : Number(match[2]);
  if (!point || !KNOWN_CRASH_POINTS.includes(point) || nth < 1) {
    context.addIssue({ code: "custom", message: "not a crash point" });
    return z.NEVER;
  }
  return { point, nth };
});

/** A variable's schema, with its docs registered (VARIABLE_DOCS). */
export const doc = <S extends z.ZodType>(schema: S, meta: VariableDoc): S => {
  VARIABLE_DOCS.add(schema as z.ZodType, meta);
  return schema;
};
export const LOCAL = "local/CLI";
export const HANDLERS = "Lambda handlers";
