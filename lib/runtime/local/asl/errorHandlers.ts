import { AslDefinitionError } from "./errors.ts";
import type { Catcher, Retrier, State } from "./machine.ts";
import { compileResultPath, isObject } from "./paths.ts";

/**
 * A Task's or a Map's Retry and Catch, checked and compiled: which errors each entry handles, how a
 * retrier waits, and where a catcher goes (its Next resolved once every state is known).
 */

/** Sets a catcher's Next once every state of its machine is compiled. */
export type Resolve = () => void;

/** The Step Functions error names Retry and Catch may name besides the errors the handlers throw. */
const STATES_ERRORS = new Set([
  "States.ALL",
  "States.Timeout",
  "States.NoChoiceMatched",
  "States.ResultPathMatchFailure",
]);
/** ErrorEquals: a non-empty list of names; States.ALL alone and last; only the States.* names this interpreter raises. */
function errorNames(
  state: string,
  field: string,
  value: unknown,
  last: boolean,
): { errors: Set<string>; all: boolean } {
  const refuse = (reason: string) => new AslDefinitionError(state, field, reason);
  if (!Array.isArray(value) || value.length === 0 || value.some((name) => typeof name !== "string"))
    throw refuse("must be a non-empty array of error names");
  for (const name of value as string[])
    if (name.startsWith("States.") && !STATES_ERRORS.has(name))
      throw refuse(`unsupported error name ${name} (supported: ${[...STATES_ERRORS].join(", ")})`);
  const all = value.includes("States.ALL");
  if (all && (value.length !== 1 || !last)) throw refuse("States.ALL must be alone, in the last entry");
  return { errors: new Set(value as string[]), all };
}

const RETRY_FIELDS = new Set([
  "ErrorEquals",
  "IntervalSeconds",
  "MaxAttempts",
  "BackoffRate",
  "MaxDelaySeconds",
  "JitterStrategy",
]);

export function retriers(state: string, value: unknown): Retrier[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new AslDefinitionError(state, "Retry", "must be an array");
  return value.map((raw, i) => {
    const field = `Retry[${i}]`;
    const refuse = (f: string, reason: string) => new AslDefinitionError(state, `${field}.${f}`, reason);
    if (!isObject(raw)) throw new AslDefinitionError(state, field, "must be an object");
    for (const f of Object.keys(raw)) if (!RETRY_FIELDS.has(f)) throw refuse(f, "unsupported in a retrier");
    const number = (f: string, fallback: number | undefined, min: number, integer: boolean) => {
      const v = raw[f] ?? fallback;
      if (v === undefined) return undefined;
      if (typeof v !== "number" || v < min || (integer && !Number.isInteger(v)))
        throw refuse(f, `must be ${integer ? "an integer" : "a number"} ≥ ${min}, got ${JSON.stringify(v)}`);
      return v;
    };
    const jitter = raw.JitterStrategy ?? "NONE";
    if (jitter !== "FULL" && jitter !== "NONE")
      throw refuse("JitterStrategy", `must be FULL or NONE, got ${JSON.stringify(jitter)}`);
    return {
      ...errorNames(state, `${field}.ErrorEquals`, raw.ErrorEquals, i === value.length - 1),
      intervalSeconds: number("IntervalSeconds", 1, 1, true)!,
      maxAttempts: number("MaxAttempts", 3, 0, true)!,
      backoffRate: number("BackoffRate", 2, 1, false)!,
      maxDelaySeconds: number("MaxDelaySeconds", undefined, 1, true),
      fullJitter: jitter === "FULL",
    };
  });
}

const CATCH_FIELDS = new Set(["ErrorEquals", "ResultPath", "Next"]);

export function catchers(
  state: string,
  value: unknown,
  resolves: Resolve[],
  resolve: (name: string, target: unknown, field: string) => State,
): Catcher[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new AslDefinitionError(state, "Catch", "must be an array");
  return value.map((raw, i) => {
    const field = `Catch[${i}]`;
    if (!isObject(raw)) throw new AslDefinitionError(state, field, "must be an object");
    for (const f of Object.keys(raw))
      if (!CATCH_FIELDS.has(f))
        throw new AslDefinitionError(state, `${field}.${f}`, "unsupported in a catcher");
    const catcher: Catcher = {
      ...errorNames(state, `${field}.ErrorEquals`, raw.ErrorEquals, i === value.length - 1),
      resultPath: compileResultPath(raw.ResultPath, { state, field: `${field}.ResultPath` }),
      next: undefined as unknown as State,
    };
    resolves.push(() => (catcher.next = resolve(state, raw.Next, `${field}.Next`)));
    return catcher;
  });
}
