import { AslDefinitionError, StatesError } from "./errors.ts";

/** What `$$` holds: the execution's context object. */
export type Context = Readonly<Record<string, unknown>>;

/** A reference path parsed once: `$`, `$.a.b`, or `$$.a.b` (the context object). */
export interface Path {
  readonly text: string;
  readonly context: boolean;
  readonly keys: readonly string[];
}

/** Where a path or template sits in the definition, for the refusal's message. */
export interface Where {
  readonly state: string | undefined;
  readonly field: string;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** No value at a path: distinct from `undefined`, which JSON cannot hold anyway. */
export const MISSING: unique symbol = Symbol("missing");

/** Parse a reference path; only dotted field names are supported (no brackets, wildcards or filters). */
export function parsePath(text: unknown, where: Where): Path {
  const refuse = (reason: string) => new AslDefinitionError(where.state, where.field, reason);
  if (typeof text !== "string") throw refuse(`a path must be a string, got ${JSON.stringify(text)}`);
  const context = text.startsWith("$$");
  const rest = text.slice(context ? 2 : 1);
  if (!text.startsWith("$") || (rest !== "" && !rest.startsWith(".")))
    throw refuse(`unsupported path ${JSON.stringify(text)}: expected $, $.field.field… or $$.field…`);
  const keys = rest === "" ? [] : rest.slice(1).split(".");
  const bad = keys.find((key) => !KEY.test(key));
  if (bad !== undefined)
    throw refuse(
      `unsupported path ${JSON.stringify(text)}: ${JSON.stringify(bad)} is not a plain field name`,
    );
  return { text, context, keys };
}

/** Whether a JSON value is an object (not null, not an array). */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The value at `path`, or MISSING. */
export function lookup(path: Path, input: unknown, context: Context): unknown {
  let value: unknown = path.context ? context : input;
  for (const key of path.keys) {
    if (!isObject(value) || !Object.hasOwn(value, key)) return MISSING;
    value = value[key];
  }
  return value;
}

/** The value at `path`; none there is `States.Runtime`, as in Step Functions. */
export function valueAt(path: Path, input: unknown, context: Context, state: string): unknown {
  const value = lookup(path, input, context);
  if (value === MISSING)
    throw new StatesError(
      "States.Runtime",
      `state ${state}: the path ${path.text} has no value in the input`,
    );
  return value;
}

/** How a state puts its result into its input: ResultPath. */
export type ResultPath = (input: unknown, result: unknown) => unknown;

const replace: ResultPath = (_input, result) => result;
const discard: ResultPath = (input) => input;

/** ResultPath compiled: absent or `$` is the result, null the input unchanged, `$.a.b` the input with the result at a.b. */
export function compileResultPath(path: unknown, where: Where): ResultPath {
  if (path === undefined) return replace;
  if (path === null) return discard;
  const parsed = parsePath(path, where);
  if (parsed.context)
    throw new AslDefinitionError(where.state, where.field, `a ResultPath cannot point into the context ($$)`);
  if (parsed.keys.length === 0) return replace;
  const { keys } = parsed;
  return (input, result) => setAt(input, keys, 0, result, where.state);
}

/** A copy of `input` with `value` at keys[from…]: only the objects along the path are copied. */
function setAt(
  input: unknown,
  keys: readonly string[],
  from: number,
  value: unknown,
  state?: string,
): unknown {
  if (from === keys.length) return value;
  if (!isObject(input))
    throw new StatesError(
      "States.ResultPathMatchFailure",
      `state ${state}: the ResultPath $.${keys.join(".")} does not match the input (not an object at ${keys[from - 1] ?? "$"})`,
    );
  const key = keys[from]!;
  const child = Object.hasOwn(input, key) ? input[key] : {};
  return { ...input, [key]: setAt(child, keys, from + 1, value, state) };
}

/** A payload template (Parameters, ItemSelector) compiled to a function of the input and context. */
export type Template = (input: unknown, context: Context) => Record<string, unknown>;

type Value = (input: unknown, context: Context) => unknown;

/** Compile Parameters/ItemSelector: `key.$` fields are paths or a supported intrinsic; the rest literal (shared, frozen). */
export function compileTemplate(template: unknown, where: Where): Template {
  if (!isObject(template))
    throw new AslDefinitionError(where.state, where.field, "a payload template must be an object");
  const fields: [string, Value][] = Object.entries(template).map(([key, value]) => {
    const at: Where = { state: where.state, field: `${where.field}.${key}` };
    if (key.endsWith(".$")) return [key.slice(0, -2), compileDynamic(value, at)];
    if (isObject(value)) {
      const nested = compileTemplate(value, at);
      return [key, nested];
    }
    const literal = deepFreeze(value);
    return [key, () => literal];
  });
  return (input, context) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of fields) out[key] = value(input, context);
    return out;
  };
}

function compileDynamic(value: unknown, where: Where): Value {
  if (typeof value !== "string")
    throw new AslDefinitionError(
      where.state,
      where.field,
      "a `.$` field must be a path or an intrinsic function",
    );
  if (value.startsWith("$")) {
    const path = parsePath(value, where);
    const state = where.state ?? "";
    return (input, context) => valueAt(path, input, context, state);
  }
  return compileIntrinsic(value, where);
}

const INTRINSIC = /^(States\.[A-Za-z]+)\((.*)\)$/s;

/** The intrinsics the definition uses: States.ArrayGetItem(array path, index path or integer). */
function compileIntrinsic(text: string, where: Where): Value {
  const refuse = (reason: string) => new AslDefinitionError(where.state, where.field, reason);
  const match = INTRINSIC.exec(text);
  if (!match) throw refuse(`${JSON.stringify(text)} is neither a path nor an intrinsic function`);
  const [, name, argText] = match as unknown as [string, string, string];
  if (name !== "States.ArrayGetItem") throw refuse(`unsupported intrinsic function ${name}`);
  const args = argText.split(",").map((arg) => arg.trim());
  if (args.length !== 2) throw refuse(`${name} takes 2 arguments, got ${args.length}`);
  const [array, index] = args.map((arg): Value => {
    if (/^-?\d+$/.test(arg)) {
      const n = Number(arg);
      return () => n;
    }
    if (!arg.startsWith("$"))
      throw refuse(`${name}: unsupported argument ${JSON.stringify(arg)} (a path or an integer)`);
    const path = parsePath(arg, where);
    return (input, context) => valueAt(path, input, context, where.state ?? "");
  }) as [Value, Value];
  return (input, context) => {
    const list = array(input, context);
    const at = index(input, context);
    if (
      !Array.isArray(list) ||
      typeof at !== "number" ||
      !Number.isInteger(at) ||
      at < 0 ||
      at >= list.length
    )
      throw new StatesError(
        "States.Runtime",
        `state ${where.state}: ${text}: expected an array and an index within it, got ${JSON.stringify(list)} and ${JSON.stringify(at)}`,
      );
    return list[at];
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
