import { Duration, RemovalPolicy, Token } from "aws-cdk-lib";
import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { LogLevel } from "aws-cdk-lib/aws-stepfunctions";
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
  for (const [prop, kind] of Object.entries(PROP_KINDS)) checkKind(prop, p[prop], kind);
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

/** What a prop (or a field of one) must be: a test of the value and the words an error says it expected. */
export interface Kind {
  is(value: unknown): boolean;
  expected: string;
  /** An array's items, each checked and named by its index (`eventPublishers[0]`). */
  each?: Kind;
}

/** An object prop: the fields it may hold (any other is a typo), each of its kind; `required` ones must be there. */
export interface ObjectKind {
  fields: Readonly<Record<string, Kind | ObjectKind>>;
  required?: readonly string[];
  /** `false` is allowed too (`alarms: false`: none). */
  orFalse?: true;
}

const isObjectKind = (kind: Kind | ObjectKind): kind is ObjectKind => "fields" in kind;
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  isObject(value) && !Array.isArray(value);
/** A construct-made or imported resource: a construct holding the named string attributes (tokens or not). */
const resource =
  (...attributes: string[]) =>
  (value: unknown): boolean =>
    isObject(value) &&
    isObject((value as { node?: unknown }).node) &&
    attributes.every((name) => typeof (value as Record<string, unknown>)[name] === "string");
const enumValues = (values: readonly unknown[]) => (value: unknown) => values.includes(value);
const shownEnum = (name: string, members: Record<string, unknown>) =>
  `one of ${Object.keys(members)
    .filter((key) => Number.isNaN(Number(key)))
    .map((key) => `${name}.${key}`)
    .join(", ")}`;

/** The kinds props and their fields are of; each error names the prop and what it got (describeValue). */
export const KINDS = {
  string: { is: (v: unknown) => typeof v === "string", expected: "a string" },
  number: { is: (v: unknown) => typeof v === "number", expected: "a number" },
  boolean: { is: (v: unknown) => typeof v === "boolean", expected: "true or false" },
  duration: { is: isDuration, expected: "a Duration (e.g. Duration.minutes(10))" },
  strings: {
    is: Array.isArray,
    expected: 'an array of strings (["…"])',
    each: { is: (v: unknown) => typeof v === "string", expected: "a string" },
  },
  topic: {
    is: resource("topicArn"),
    expected: 'an SNS topic (ITopic, e.g. Topic.fromTopicArn(this, "OnCall", arn)), not its ARN',
  },
  table: {
    is: resource("tableName", "tableArn"),
    expected:
      'a DynamoDB table (ITable, e.g. Table.fromTableAttributes(this, "Runs", { tableName, globalIndexes })), not its name',
  },
  eventBus: {
    is: resource("eventBusName", "eventBusArn"),
    expected:
      'an EventBridge bus (IEventBus, e.g. EventBus.fromEventBusName(this, "Bus", name)), not its name',
  },
  principals: {
    is: Array.isArray,
    expected: 'an array of IAM principals (e.g. [new AccountPrincipal("111111111111")])',
    each: {
      is: (v: unknown) =>
        isObject(v) &&
        "policyFragment" in v &&
        typeof (v as { addToPrincipalPolicy?: unknown }).addToPrincipalPolicy === "function",
      expected: 'an IAM principal (e.g. new AccountPrincipal("111111111111")), not an account id or ARN',
    },
  },
  removalPolicy: {
    is: enumValues(Object.values(RemovalPolicy)),
    expected: shownEnum("RemovalPolicy", RemovalPolicy),
  },
  retentionDays: {
    is: (v: unknown) =>
      (typeof v === "number" && Token.isUnresolved(v)) ||
      Object.values(RetentionDays).includes(v as RetentionDays),
    expected:
      "a RetentionDays of aws-cdk-lib/aws-logs (RetentionDays.THREE_MONTHS …: CloudWatch Logs offers those only)",
  },
  logLevel: { is: enumValues(Object.values(LogLevel)), expected: shownEnum("LogLevel", LogLevel) },
} as const satisfies Record<string, Kind>;

/**
 * The kind of every prop whose kind is not checked by a validator of its own (functions,
 * toolGroups, encryptionKey, the network props, modelKeySecret have theirs): an object prop's
 * fields are listed, so a misspelled field is named as the top-level ones are.
 */
export const PROP_KINDS: Readonly<Record<string, Kind | ObjectKind>> = {
  retentionDays: KINDS.number,
  statusShards: KINDS.number,
  maxRunningPerOwner: KINDS.number,
  table: KINDS.table,
  eventBus: KINDS.eventBus,
  eventPublishers: KINDS.principals,
  tableRemovalPolicy: KINDS.removalPolicy,
  logRetention: KINDS.retentionDays,
  adminPrincipals: KINDS.strings,
  trustedEventSources: KINDS.strings,
  redrive: { fields: { after: KINDS.duration }, required: ["after"] },
  alarms: { fields: { topic: KINDS.topic, runbookBaseUrl: KINDS.string }, orFalse: true },
  concurrency: { fields: { reservedConcurrency: KINDS.number, maxToolCalls: KINDS.number } },
  stateMachineLogs: { fields: { level: KINDS.logLevel, includeExecutionData: KINDS.boolean } },
  auth: {
    fields: {
      jwt: {
        fields: {
          issuer: KINDS.string,
          audience: KINDS.strings,
          tenantClaim: KINDS.string,
          adminScope: KINDS.string,
        },
        required: ["issuer", "audience"],
      },
    },
    required: ["jwt"],
  },
  throttle: { fields: { rateLimit: KINDS.number, burstLimit: KINDS.number } },
  models: { fields: { allow: KINDS.strings }, required: ["allow"] },
  bedrock: { fields: { models: KINDS.strings }, required: ["models"] },
};

/** `{ a, b? }`: an object kind as an error shows it. */
function shownFields(kind: ObjectKind): string {
  const fields = Object.keys(kind.fields).map((name) => (kind.required?.includes(name) ? name : `${name}?`));
  return `{ ${fields.join(", ")} }${kind.orFalse ? " or false" : ""}`;
}

/**
 * Check `value` (at `prop`, e.g. `alarms` or `auth.jwt`) is of `kind`: an object kind's unknown
 * fields are refused with the field it most likely meant, its required ones must be there, and each
 * field is checked in turn. Undefined passes (every prop and field is optional unless required).
 */
export function checkKind(prop: string, value: unknown, kind: Kind | ObjectKind): void {
  if (value === undefined) return;
  if (isObjectKind(kind) && kind.orFalse && value === false) return;
  if (!isObjectKind(kind)) {
    if (!kind.is(value)) {
      throw new RunlogPropsError(prop, `must be ${kind.expected}, got ${describeValue(value)}`);
    }
    const { each } = kind;
    if (each && Array.isArray(value)) {
      for (const [i, item] of value.entries()) checkKind(`${prop}[${i}]`, item, each);
    }
    return;
  }
  if (!isPlainObject(value) || isDuration(value)) {
    throw new RunlogPropsError(prop, `must be ${shownFields(kind)}, got ${describeValue(value)}`);
  }
  const known = Object.keys(kind.fields);
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const near = nearestName(key, known);
    throw new RunlogPropsError(
      `${prop}.${key}`,
      `is not a field of ${prop}${near ? `: did you mean ${near}?` : ""} (${prop} is ${shownFields(kind)})`,
    );
  }
  for (const key of kind.required ?? []) {
    if (value[key] === undefined) {
      throw new RunlogPropsError(`${prop}.${key}`, `is required: ${prop} is ${shownFields(kind)}`);
    }
  }
  for (const [key, field] of Object.entries(kind.fields)) checkKind(`${prop}.${key}`, value[key], field);
}
