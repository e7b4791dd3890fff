import { Duration, Token } from "aws-cdk-lib";
import { RunlogPropsError } from "./propsError.ts";

/** A value as an error message shows it: its type and, where short, the value itself. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (typeof value === "string") {
    return Token.isUnresolved(value)
      ? "an unresolved token (a string)"
      : `the string ${JSON.stringify(value)}`;
  }
  if (typeof value === "number") {
    return Token.isUnresolved(value) ? "an unresolved token (a number)" : `the number ${value}`;
  }
  if (typeof value === "boolean" || typeof value === "bigint") return `the ${typeof value} ${String(value)}`;
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  const name = (value as object).constructor?.name;
  return name && name !== "Object" ? `a ${name}` : "an object";
}

/** Edit distance between two names, to suggest the prop a misspelled one meant. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The known name an unknown one most likely meant: same letters but case, or a couple of edits away. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const exact = known.find((candidate) => candidate.toLowerCase() === lower);
  if (exact) return exact;
  const most = Math.min(2, Math.floor(name.length / 4));
  const ranked = known
    .map((candidate) => ({ candidate, edits: distance(lower, candidate.toLowerCase()) }))
    .filter(({ edits }) => edits <= most)
    .sort((x, y) => x.edits - y.edits);
  // Two names equally near is no obvious one.
  if (ranked.length === 0 || ranked[1]?.edits === ranked[0]!.edits) return undefined;
  return ranked[0]!.candidate;
}

const isDuration = (value: unknown): value is Duration => value instanceof Duration;
const isObject = (value: unknown): value is object => typeof value === "object" && value !== null;

function expectDuration(prop: string, value: unknown, example: string): void {
  if (value !== undefined && !isDuration(value)) {
    throw new RunlogPropsError(prop, `must be a Duration (e.g. ${example}), got ${describeValue(value)}`);
  }
}

function expectNumber(prop: string, value: unknown): void {
  if (value !== undefined && typeof value !== "number") {
    throw new RunlogPropsError(prop, `must be a number, got ${describeValue(value)}`);
  }
}

/**
 * `true` when the list `L` names every key of `T`, else the keys it lacks: a list of prop names
 * typed with it (`const listed: EveryKeyListed<T, typeof NAMES> = true`) fails the build when a
 * key is added to `T` and not to the list, rather than a user's synth.
 */
export type EveryKeyListed<T, L extends readonly PropertyKey[]> = [Exclude<keyof T, L[number]>] extends [
  never,
]
  ? true
  : Exclude<keyof T, L[number]>;

/**
 * What TypeScript would have refused, checked for JavaScript callers and `as any`: props an object,
 * no unknown key, and each prop of the kind it must be, so a wrong one is named rather than a
 * TypeError thrown from deep in the construct.
 */
export function checkPropsShape(props: unknown, known: readonly string[]): asserts props is object {
  if (!isObject(props) || Array.isArray(props)) {
    throw new RunlogPropsError(
      "props",
      `must be an object ({ agentsModule, ... }), got ${describeValue(props)}`,
    );
  }
  for (const key of Object.keys(props)) {
    if (known.includes(key)) continue;
    const near = nearestName(key, known);
    throw new RunlogPropsError(
      key,
      `is not a Runlog prop${near ? `: did you mean ${near}?` : " (docs/reference/construct-props.md lists them)"}`,
    );
  }
  const p = props as Record<string, unknown>;
  expectDuration("sweepEvery", p.sweepEvery, "Duration.minutes(5)");
  expectDuration("executionTimeout", p.executionTimeout, "Duration.hours(24)");
  if (p.redrive !== undefined) {
    if (!isObject(p.redrive)) {
      throw new RunlogPropsError("redrive", `must be { after: Duration }, got ${describeValue(p.redrive)}`);
    }
    const after = (p.redrive as { after?: unknown }).after;
    if (!isDuration(after)) {
      throw new RunlogPropsError(
        "redrive.after",
        `must be a Duration (e.g. Duration.minutes(10)), got ${describeValue(after)}`,
      );
    }
  }
  for (const prop of ["retentionDays", "statusShards", "maxRunningPerOwner"] as const) {
    expectNumber(prop, p[prop]);
  }
  const secret = p.modelKeySecret;
  if (
    secret !== undefined &&
    typeof secret !== "string" &&
    !(isObject(secret) && typeof (secret as { secretArn?: unknown }).secretArn === "string")
  ) {
    throw new RunlogPropsError(
      "modelKeySecret",
      `must be a secret (ISecret), or its name or ARN as a string, got ${describeValue(secret)}`,
    );
  }
  for (const prop of ["legacyStatusIndex", "dashboard", "tableDeletionProtection"] as const) {
    if (p[prop] !== undefined && typeof p[prop] !== "boolean") {
      throw new RunlogPropsError(prop, `must be true or false, got ${describeValue(p[prop])}`);
    }
  }
  for (const prop of ["agentsModule", "projectRoot"] as const) {
    if (p[prop] !== undefined && typeof p[prop] !== "string") {
      throw new RunlogPropsError(prop, `must be a path (a string), got ${describeValue(p[prop])}`);
    }
  }
}
