import { compileRule } from "./choice.ts";
import { catchers, type Resolve, retriers } from "./errorHandlers.ts";
import { AslDefinitionError } from "./errors.ts";
import type { Machine, State } from "./machine.ts";
import { compileResultPath, compileTemplate, isObject, parsePath, type Where } from "./paths.ts";

/** How Task Resources map to local handlers: each Resource the definition may name, and its handler's name. */
export interface CompileOptions {
  readonly resources: Readonly<Record<string, string>>;
}

type Json = Record<string, unknown>;

/** The fields each supported state type may have; anything else is refused. */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  Task: ["Resource", "Parameters", "ResultPath", "TimeoutSeconds", "Retry", "Catch"],
  Map: ["ItemsPath", "MaxConcurrency", "ItemSelector", "ItemProcessor", "ResultPath", "Retry", "Catch"],
  Choice: ["Choices", "Default"],
  Pass: ["Result", "ResultPath"],
  Succeed: [],
  Fail: ["Error", "Cause"],
};
/** Types that end in Next or End. */
const TRANSITIONS = new Set(["Task", "Map", "Pass"]);
/** An inline Map runs at most this many iterations at once when MaxConcurrency is 0 or absent, as in Step Functions. */
const INLINE_MAP_CONCURRENCY = 40;

/** Compile a definition once: every state checked, every path parsed, every Next resolved to its state. */
export function compileDefinition(definition: unknown, options: CompileOptions): Machine {
  return compileMachine(definition, options, undefined);
}

function compileMachine(definition: unknown, options: CompileOptions, parent: string | undefined): Machine {
  const top = parent === undefined;
  const at = (field: string) => (top ? field : `${parent}.ItemProcessor.${field}`);
  const refuse = (field: string, reason: string) => new AslDefinitionError(parent, at(field), reason);
  if (!isObject(definition)) throw refuse("", "a state machine definition must be an object");
  const allowed = new Set([
    "Comment",
    "StartAt",
    "States",
    ...(top ? ["TimeoutSeconds"] : ["ProcessorConfig"]),
  ]);
  for (const field of Object.keys(definition))
    if (!allowed.has(field)) throw refuse(field, "unsupported field");
  if (!top) {
    const config = definition.ProcessorConfig;
    if (
      config !== undefined &&
      !(isObject(config) && Object.keys(config).join() === "Mode" && config.Mode === "INLINE")
    )
      throw refuse("ProcessorConfig", `only { Mode: "INLINE" } is supported, got ${JSON.stringify(config)}`);
  }
  const timeoutSeconds = top
    ? positiveInteger(definition.TimeoutSeconds, parent, "TimeoutSeconds", true)
    : undefined;
  if (!isObject(definition.States) || Object.keys(definition.States).length === 0)
    throw refuse("States", "must be an object with at least one state");
  const prefix = top ? "" : `${parent} > `;
  const states = new Map<string, State>();
  const resolves: Resolve[] = [];
  const handlers = new Set<string>();
  const resolve = (name: string, target: unknown, field: string): State => {
    const state = typeof target === "string" ? states.get(target) : undefined;
    if (state === undefined)
      throw new AslDefinitionError(name, field, `names no state of this machine: ${JSON.stringify(target)}`);
    return state;
  };
  for (const [name, raw] of Object.entries(definition.States)) {
    const state = compileState(name, `${prefix}${name}`, raw, options, resolves, resolve, handlers);
    states.set(name, state);
  }
  for (const fn of resolves) fn();
  const start = states.get(definition.StartAt as string);
  if (start === undefined) throw refuse("StartAt", `names no state: ${JSON.stringify(definition.StartAt)}`);
  return { start, timeoutSeconds, handlers };
}

function compileState(
  name: string,
  /** The state as refusals name it: `Map > State` inside a Map. */
  label: string,
  raw: unknown,
  options: CompileOptions,
  resolves: Resolve[],
  resolve: (name: string, target: unknown, field: string) => State,
  handlers: Set<string>,
): State {
  const refuse = (field: string, reason: string) => new AslDefinitionError(label, field, reason);
  if (!isObject(raw)) throw refuse("", "a state must be an object");
  const type = raw.Type;
  const fields = typeof type === "string" && Object.hasOwn(FIELDS, type) ? FIELDS[type]! : undefined;
  if (fields === undefined) throw refuse("Type", `unsupported state type ${JSON.stringify(type)}`);
  const transitions = TRANSITIONS.has(type as string);
  const allowed = new Set(["Type", "Comment", ...fields, ...(transitions ? ["Next", "End"] : [])]);
  for (const field of Object.keys(raw))
    if (!allowed.has(field)) throw refuse(field, `unsupported in a ${type} state`);
  const where = (field: string): Where => ({ state: label, field });
  // Next or End: exactly one, resolved once every state of the machine is compiled.
  const transition = <S extends { next: State | undefined }>(state: S): S => {
    if (!transitions) return state;
    if ((raw.Next === undefined) === (raw.End !== true))
      throw refuse(raw.Next === undefined ? "End" : "Next", "a state needs exactly one of Next or End: true");
    if (raw.End !== undefined && raw.End !== true) throw refuse("End", "must be true when present");
    if (raw.Next !== undefined) resolves.push(() => (state.next = resolve(label, raw.Next, "Next")));
    return state;
  };
  switch (type) {
    case "Task": {
      const resource = raw.Resource;
      const handler = typeof resource === "string" ? options.resources[resource] : undefined;
      if (handler === undefined)
        throw refuse(
          "Resource",
          `no local handler for ${JSON.stringify(resource)} (known: ${Object.keys(options.resources).join(", ")})`,
        );
      handlers.add(handler);
      const timeout = positiveInteger(raw.TimeoutSeconds, label, "TimeoutSeconds", false);
      return transition({
        type,
        name,
        next: undefined,
        handler,
        parameters:
          raw.Parameters === undefined ? undefined : compileTemplate(raw.Parameters, where("Parameters")),
        timeoutMs: timeout === undefined ? undefined : timeout * 1000,
        resultPath: compileResultPath(raw.ResultPath, where("ResultPath")),
        retry: retriers(label, raw.Retry),
        catch: catchers(label, raw.Catch, resolves, resolve),
      });
    }
    case "Map": {
      const processor = compileMachine(raw.ItemProcessor, options, label);
      for (const handler of processor.handlers) handlers.add(handler);
      const max = raw.MaxConcurrency ?? 0;
      if (typeof max !== "number" || !Number.isInteger(max) || max < 0)
        throw refuse("MaxConcurrency", `must be an integer ≥ 0, got ${JSON.stringify(max)}`);
      return transition({
        type,
        name,
        next: undefined,
        itemsPath: raw.ItemsPath === undefined ? undefined : parsePath(raw.ItemsPath, where("ItemsPath")),
        maxConcurrency: max === 0 ? INLINE_MAP_CONCURRENCY : max,
        itemSelector:
          raw.ItemSelector === undefined
            ? undefined
            : compileTemplate(raw.ItemSelector, where("ItemSelector")),
        processor,
        resultPath: compileResultPath(raw.ResultPath, where("ResultPath")),
        retry: retriers(label, raw.Retry),
        catch: catchers(label, raw.Catch, resolves, resolve),
      });
    }
    case "Choice": {
      if (!Array.isArray(raw.Choices) || raw.Choices.length === 0)
        throw refuse("Choices", "must be a non-empty array");
      const state = {
        type,
        name,
        choices: raw.Choices.map((rule, i) => {
          const choice = {
            test: compileRule(rule, where(`Choices[${i}]`), true),
            next: undefined as unknown as State,
          };
          resolves.push(() => (choice.next = resolve(label, (rule as Json).Next, `Choices[${i}].Next`)));
          return choice;
        }),
        default: undefined as State | undefined,
      };
      if (raw.Default !== undefined)
        resolves.push(() => (state.default = resolve(label, raw.Default, "Default")));
      return state;
    }
    case "Pass":
      return transition({
        type,
        name,
        next: undefined,
        result: raw.Result,
        hasResult: Object.hasOwn(raw, "Result"),
        resultPath: compileResultPath(raw.ResultPath, where("ResultPath")),
      });
    case "Succeed":
      return { type, name };
    case "Fail":
      for (const field of ["Error", "Cause"])
        if (raw[field] !== undefined && typeof raw[field] !== "string")
          throw refuse(field, "must be a string");
      return {
        type,
        name,
        error: (raw.Error as string | undefined) ?? "States.Fail",
        cause: (raw.Cause as string | undefined) ?? "",
      };
  }
  throw refuse("Type", `unsupported state type ${JSON.stringify(type)}`);
}

function positiveInteger(
  value: unknown,
  state: string | undefined,
  field: string,
  top: boolean,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw new AslDefinitionError(
      top ? undefined : state,
      field,
      `must be a positive integer, got ${JSON.stringify(value)}`,
    );
  return value;
}
