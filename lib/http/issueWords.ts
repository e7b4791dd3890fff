import type * as z from "zod";
import { checkLimits } from "../core/budget.ts";
import { InvalidInputError } from "../core/errors.ts";
import { checkModelSettings } from "../core/modelSettings.ts";

/**
 * The library's own checks of the body fields it has one for: a 400 about one of these says what
 * `Runlog.start` would (`limits.maxTurns must be a whole number, 1 or more`), not zod's words.
 * (Metadata's schema already refuses in the library's words, naming the path inside it.)
 */
const LIBRARY_CHECKS: Record<string, (value: unknown, field: string) => unknown> = {
  limits: checkLimits,
  modelSettings: checkModelSettings,
};

/** The library's error for `body[key]`, when the library checks that field and refuses the value. */
export function libraryRefusal(body: unknown, key: PropertyKey | undefined): InvalidInputError | undefined {
  if (typeof key !== "string" || !Object.hasOwn(LIBRARY_CHECKS, key)) return undefined;
  if (typeof body !== "object" || body === null) return undefined;
  try {
    LIBRARY_CHECKS[key]?.((body as Record<string, unknown>)[key], key);
  } catch (error) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  return undefined;
}

const TYPE_WORDS: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  record: "a JSON object",
  map: "an object",
  array: "an array",
  tuple: "an array",
  bigint: "a number",
  null: "null",
  literal: "a fixed value",
};

const plural = (count: number | bigint, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;

/**
 * What is wrong with a value, in words a caller reads (`must be at most 256 characters`), for
 * one zod issue: zod's own messages ("Too small: expected number to be >=1") name neither the
 * field nor what a request may hold. A message a schema gave itself (a refinement's) is kept.
 */
export function issueWords(issue: z.core.$ZodIssue): string {
  // zod's own messages start so; any other is the schema's (`must be a whole number, 1 or more`).
  if (!/^(Too small|Too big|Invalid input|Invalid option)\b/.test(issue.message)) return issue.message;
  switch (issue.code) {
    case "invalid_type": {
      const expected = TYPE_WORDS[issue.expected] ?? `of type ${issue.expected}`;
      return /received undefined$/.test(issue.message) ? `is required (${expected})` : `must be ${expected}`;
    }
    case "too_small": {
      const min = issue.minimum;
      if (issue.origin === "string")
        return Number(min) <= 1 ? "must not be empty" : `must be at least ${plural(min, "character")}`;
      if (issue.origin === "array") return `must hold at least ${plural(min, "item")}`;
      return issue.inclusive ? `must be ${min} or more` : `must be more than ${min}`;
    }
    case "too_big": {
      const max = issue.maximum;
      if (issue.origin === "string") return `must be at most ${plural(max, "character")}`;
      if (issue.origin === "array") return `must hold at most ${plural(max, "item")}`;
      return issue.inclusive ? `must be ${max} or less` : `must be less than ${max}`;
    }
    case "invalid_value":
      return `must be ${issue.values.map((value) => JSON.stringify(value)).join(" or ")}`;
    default:
      return issue.message;
  }
}
