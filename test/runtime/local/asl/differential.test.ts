/**
 * runlog's ASL interpreter against aws-local-stepfunctions (the interpreter it replaced), both
 * executing the real rendered definition with the same scripted handlers: the same task
 * invocations (as multisets inside a Map), the same output or error, the same history count.
 */
import { StateMachine } from "aws-local-stepfunctions";
import { describe, expect, it } from "vitest";
import { compileDefinition } from "../../../../lib/runtime/local/asl/compile.ts";
import { ExecutionFailedError } from "../../../../lib/runtime/local/asl/errors.ts";
import { startExecution } from "../../../../lib/runtime/local/asl/execute.ts";
import { type DefinitionOptions, renderDefinition, TASKS } from "../../../../lib/workflow/definition.ts";
import { groupTaskName } from "../../../../lib/workflow/toolGroups.ts";

const GROUPS = { web: { tools: ["search"] }, fs: { tools: ["read", "write"] } };
const arn = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:diff-${name}`;
const TOOL_HANDLERS = new Set(["RunTool", ...Object.keys(GROUPS).map(groupTaskName)]);

/** What a scripted handler does on one invocation: answer, throw an error of that name, or hang past a timeout. */
type Outcome = { ok: unknown } | { error: string } | { hangMs: number };

interface Case {
  name: string;
  groups?: boolean;
  options?: DefinitionOptions;
  /** Task states whose TimeoutSeconds is set to 1 in the rendered definition. */
  shortTimeout?: string[];
  /** CallModel's outcomes, one per invocation. */
  model: Outcome[];
  /** A tool call's outcomes by call id, one per attempt; absent: it succeeds. */
  tools?: Record<string, Outcome[]>;
  handoff?: boolean;
  finish?: Outcome[];
  recordFailure?: Outcome[];
}

const ok = (value: unknown): Outcome => ({ ok: value });
const fail = (error: string): Outcome => ({ error });
const ids = (n: number, prefix = "c") => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const tools = (callIds: string[], names?: string[]) =>
  ok({ action: "tools", callIds, ...(names ? { tools: names } : {}) });
const done = ok({ action: "done" });

function definition(c: Case): Record<string, unknown> {
  const rendered = renderDefinition(
    Object.fromEntries(Object.keys(TASKS).map((t) => [t, arn(t)])) as Record<keyof typeof TASKS, string>,
    { ...c.options, ...(c.groups ? { toolGroups: GROUPS } : {}) },
    Object.fromEntries(Object.keys(GROUPS).map((g) => [g, arn(groupTaskName(g))])),
  );
  // Shorten a Task's timeout in the rendered definition itself, for both interpreters alike.
  for (const name of c.shortTimeout ?? []) {
    const states = rendered.States as Record<string, Record<string, unknown>>;
    const map = states.RunTools!.ItemProcessor as { States: Record<string, Record<string, unknown>> };
    (states[name] ?? map.States[name]!).TimeoutSeconds = 1;
  }
  return rendered;
}

const handlerNames = (c: Case) => [
  ...Object.keys(TASKS),
  ...(c.groups ? Object.keys(GROUPS).map(groupTaskName) : []),
];

/** The scripted handlers of one execution, and what they saw. */
function scripted(c: Case) {
  const calls: [string, unknown][] = [];
  const attempts = new Map<string, number>();
  let inFlight = 0;
  let maxInFlight = 0;
  const outcome = (name: string, input: Record<string, unknown>): Outcome => {
    const key = TOOL_HANDLERS.has(name) ? `tool:${input.callId}` : name;
    const attempt = attempts.get(key) ?? 0;
    attempts.set(key, attempt + 1);
    const script =
      name === "CallModel"
        ? c.model
        : TOOL_HANDLERS.has(name)
          ? (c.tools?.[input.callId as string] ?? [ok({ result: input.callId })])
          : name === "Finish"
            ? (c.finish ?? [ok({ status: "rested" })])
            : name === "RecordModelFailure"
              ? (c.recordFailure ?? [ok({ recorded: true })])
              : [ok({ handedOff: c.handoff ?? false })];
    const at = name === "CallModel" ? attempt : Math.min(attempt, script.length - 1);
    const chosen = script[at];
    if (chosen === undefined)
      throw new Error(`case ${c.name}: no scripted outcome for ${name} invocation ${attempt}`);
    return chosen;
  };
  const handler = (name: string) => async (input: unknown) => {
    calls.push([name, input]);
    const chosen = outcome(name, input as Record<string, unknown>);
    const tool = TOOL_HANDLERS.has(name);
    if (tool) maxInFlight = Math.max(maxInFlight, ++inFlight);
    try {
      // Every step takes a moment, so a Map's iterations overlap as far as MaxConcurrency lets them.
      await new Promise((resolve) => setTimeout(resolve, "hangMs" in chosen ? chosen.hangMs : 2));
    } finally {
      if (tool) inFlight--;
    }
    if ("error" in chosen) {
      const error = new Error(`${chosen.error}: scripted for ${name}`);
      error.name = chosen.error;
      throw error;
    }
    return "ok" in chosen ? structuredClone(chosen.ok) : {};
  };
  const handlers = Object.fromEntries(handlerNames(c).map((name) => [name, handler(name)]));
  return { handlers, calls, maxInFlight: () => maxInFlight };
}

interface Observed {
  calls: string[];
  outcome: unknown;
  historyEvents: number;
  tasks: Record<string, number>;
  maxInFlight: number;
}

const INPUT = { runId: "run-1", generation: 3, owner: "local:1", next: { action: "model" } };
const CONTEXT = {
  StateMachine: { Id: "arn:aws:states:us-east-1:000000000000:stateMachine:diff", Name: "diff" },
};
const RETRY_MS = 1;

/** The invocations as (state, input) strings, each run of consecutive tool invocations (one Map) sorted. */
function normalise(calls: [string, unknown][]): string[] {
  const out: string[] = [];
  let batch: string[] = [];
  const flush = () => {
    out.push(...batch.sort());
    batch = [];
  };
  for (const [name, input] of calls) {
    const text = `${name} ${JSON.stringify(input)}`;
    if (TOOL_HANDLERS.has(name)) batch.push(text);
    else {
      flush();
      out.push(text);
    }
  }
  flush();
  return out;
}

/** A Catch output's Cause for States.Timeout is the interpreter's own sentence; the rest must match exactly. */
const outputOf = (value: unknown) =>
  JSON.parse(
    JSON.stringify(value, (key, v) =>
      key === "failure" && v?.Error === "States.Timeout" ? { Error: v.Error, Cause: "(timeout)" } : v,
    ),
  );

async function ours(c: Case): Promise<Observed> {
  const machine = compileDefinition(definition(c), {
    resources: Object.fromEntries(handlerNames(c).map((name) => [arn(name), name])),
  });
  const script = scripted(c);
  const execution = startExecution(machine, structuredClone(INPUT), {
    handlers: script.handlers,
    context: CONTEXT,
    retryIntervalMs: RETRY_MS,
  });
  let outcome: unknown;
  try {
    outcome = { output: outputOf(await execution.result) };
  } catch (error) {
    if (!(error instanceof ExecutionFailedError)) throw error;
    outcome = { error: error.error };
  }
  return {
    calls: normalise(script.calls),
    outcome,
    historyEvents: execution.history.events,
    tasks: { ...execution.history.tasks },
    maxInFlight: script.maxInFlight(),
  };
}

/**
 * The count of Step Functions' history the local orchestrator used to make from aws-local-stepfunctions'
 * event log (its historyCost, as it was): a Task's entry 4, a Map's 3, others 1; a Task retry 3, others 1;
 * a failure or a catch 0; everything else (exits, execution and iteration events) 1.
 */
function historyCost(event: { type: string; state?: { type: string } }): number {
  switch (event.type) {
    case "StateEntered":
      return event.state?.type === "Task" ? 4 : event.state?.type === "Map" ? 3 : 1;
    case "StateRetried":
      return event.state?.type === "Task" ? 3 : 1;
    case "StateFailed":
    case "StateCaught":
      return 0;
    default:
      return 1;
  }
}

async function reference(c: Case): Promise<Observed> {
  const def = definition(c);
  const script = scripted(c);
  // aws-local-stepfunctions routes handlers by state name: each Task state runs the handler its Resource names.
  const byState: Record<string, (input: unknown) => Promise<unknown>> = {};
  const visit = (states: Record<string, Record<string, unknown>>) => {
    for (const [name, state] of Object.entries(states)) {
      if (state.Type === "Task") {
        const handler = handlerNames(c).find((h) => arn(h) === state.Resource)!;
        byState[name] = script.handlers[handler]!;
      }
      if (state.Type === "Map") visit((state.ItemProcessor as { States: typeof states }).States);
    }
  };
  visit(def.States as Record<string, Record<string, unknown>>);
  const machine = new StateMachine(def as never, { validationOptions: { noValidate: true } });
  const execution = machine.run(structuredClone(INPUT) as never, {
    context: CONTEXT,
    overrides: {
      taskResourceLocalHandlers: byState as never,
      retryIntervalOverrides: Object.fromEntries(
        [...Object.keys(byState), "RunTools"].map((n) => [n, RETRY_MS]),
      ),
    },
  });
  const count = { events: 0, tasks: {} as Record<string, number> };
  const counted = (async () => {
    for await (const event of execution.eventLogs as AsyncIterable<{
      type: string;
      state?: { type: string; name: string };
    }>) {
      count.events += historyCost(event);
      if (event.type === "StateEntered" && event.state?.type === "Task")
        count.tasks[event.state.name] = (count.tasks[event.state.name] ?? 0) + 1;
    }
  })();
  let outcome: unknown;
  try {
    outcome = { output: outputOf(await execution.result) };
  } catch (error) {
    outcome = { error: ((error as Error).cause as Error).name };
  }
  await counted;
  return {
    calls: normalise(script.calls),
    outcome,
    historyEvents: count.events,
    tasks: count.tasks,
    maxInFlight: script.maxInFlight(),
  };
}

const batches = Array.from({ length: 12 }, (_, i) => i + 1);

const CASES: Case[] = [
  { name: "a final answer", model: [done] },
  ...batches.map((n) => ({ name: `a batch of ${n} tools, then the answer`, model: [tools(ids(n)), done] })),
  {
    name: "two batches of 7 at MaxConcurrency 3",
    options: { maxToolCalls: 3 },
    model: [tools(ids(7, "a")), tools(ids(7, "b")), done],
  },
  { name: "a handoff that hands over", model: [ok({ action: "handoff" })], handoff: true },
  { name: "a handoff that does not", model: [ok({ action: "handoff" })], handoff: false },
  { name: "a stale model step", model: [fail("StaleError")] },
  { name: "a stale Finish", model: [done], finish: [fail("StaleError")] },
  {
    name: "the model unavailable: retried, then recorded as a model failure",
    model: [fail("ModelUnavailableError"), fail("ModelUnavailableError"), fail("ModelUnavailableError")],
  },
  { name: "the model rejected: recorded at once", model: [fail("ModelRejectedError")] },
  { name: "a retryable model step that then succeeds", model: [fail("RetryableError"), tools(ids(2)), done] },
  {
    name: "a conflict in a tool, retried",
    model: [tools(ids(3)), done],
    tools: { c1: [fail("ConflictError"), ok({})] },
  },
  {
    name: "a tool whose retries run out",
    model: [tools(ids(1))],
    tools: {
      c0: [fail("RetryableError"), fail("RetryableError"), fail("RetryableError"), fail("RetryableError")],
    },
  },
  { name: "a permanent error in the model step, caught by States.ALL", model: [fail("PermanentError")] },
  {
    name: "a permanent error in a tool, caught on the Map",
    model: [tools(ids(1))],
    tools: { c0: [fail("PermanentError")] },
  },
  { name: "a Lambda throttle, retried", model: [fail("Lambda.TooManyRequestsException"), done] },
  {
    name: "a failure recording the model's failure",
    model: [fail("ModelRejectedError")],
    recordFailure: [fail("PermanentError")],
  },
  {
    name: "a permanent error in Finish: the execution fails",
    model: [done],
    finish: [fail("PermanentError")],
  },
  {
    name: "tool groups: each call to its group's Task, the rest to RunTool",
    groups: true,
    model: [tools(ids(5), ["search", "read", "other", "write", "search"]), done],
  },
  {
    name: "tool groups: twelve calls at MaxConcurrency 10",
    groups: true,
    model: [
      tools(
        ids(12),
        ids(12).map((_, i) => ["search", "read", "x"][i % 3]!),
      ),
      done,
    ],
  },
  {
    name: "tool groups: a next without tool names goes back to CallModel",
    groups: true,
    model: [tools(ids(2)), tools(ids(2), ["read", "x"]), done],
  },
  {
    name: "tool groups: a grouped tool whose retries run out",
    groups: true,
    model: [tools(["c0"], ["write"])],
    tools: { c0: [fail("RetryableError")] },
  },
  {
    name: "a model step that times out twice: retried once, then caught",
    shortTimeout: ["CallModel"],
    model: [{ hangMs: 1500 }, { hangMs: 1500 }],
  },
];

describe("runlog's ASL interpreter executes the rendered definition as aws-local-stepfunctions does", () => {
  it.each(CASES)(
    "$name",
    async (c) => {
      const [mine, theirs] = await Promise.all([ours(c), reference(c)]);
      expect(mine.calls.length).toBeGreaterThan(0);
      expect(mine).toEqual(theirs);
    },
    10_000,
  );
});
