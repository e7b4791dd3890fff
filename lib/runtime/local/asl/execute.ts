import { ExecutionFailedError, ExecutionTimedOutError, StatesError } from "./errors.ts";
import { HISTORY_COST, type HistoryCount } from "./history.ts";
import type { ChoiceState, Machine, MapState, State, TaskState } from "./machine.ts";
import { type Context, valueAt } from "./paths.ts";
import { Run, type RunOptions, Scope, STOPPED } from "./run.ts";

export type { Handler, RunOptions } from "./run.ts";

/** An execution under way: its result, and its history as counted so far (final once `result` settles). */
export interface Execution {
  /** The output; rejects with ExecutionFailedError or ExecutionTimedOutError. */
  readonly result: Promise<unknown>;
  readonly history: Readonly<HistoryCount>;
}

/** Start an execution of a compiled machine. Each state's input is passed on, never deep-copied. */
export function startExecution(machine: Machine, input: unknown, options: RunOptions): Execution {
  for (const name of machine.handlers)
    if (typeof options.handlers[name] !== "function")
      throw new TypeError(`startExecution: no handler for ${name}, which a Task's Resource maps to`);
  const run = new Run(options);
  const scope = new Scope(undefined);
  run.count(scope, HISTORY_COST.execution);
  const result = new Promise<unknown>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const end = (settle: () => void) => {
      if (run.ended) return;
      clearTimeout(timer);
      run.count(scope, HISTORY_COST.execution);
      run.ended = true;
      settle();
    };
    const seconds = machine.timeoutSeconds;
    if (seconds !== undefined) {
      timer = setTimeout(
        () =>
          end(() => {
            run.stop(scope);
            reject(new ExecutionTimedOutError(seconds));
          }),
        Math.min(seconds * 1000, MAX_TIMER_MS),
      );
    }
    runStates(run, scope, machine.start, input, options.context ?? {}).then(
      (output) => end(() => resolve(output)),
      (error: unknown) => end(() => reject(failure(error))),
    );
  });
  return { result, history: run.history };
}

/** setTimeout's longest delay (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Run states from `start` to an end; the output of the last. */
async function runStates(
  run: Run,
  scope: Scope,
  start: State,
  input: unknown,
  context: Context,
): Promise<unknown> {
  let state = start;
  let value = input;
  for (;;) {
    run.enter(scope, state);
    let next: State | undefined;
    switch (state.type) {
      case "Choice":
        next = choose(state, value, context);
        break;
      case "Pass":
        value = state.resultPath(value, state.hasResult ? state.result : value);
        next = state.next;
        break;
      case "Succeed":
        break;
      case "Fail":
        throw named(state.error, state.cause);
      case "Task":
      case "Map": {
        const out = await fallible(run, scope, state, value, context);
        value = out.value;
        next = out.next;
        break;
      }
      default:
        return unreachable(state);
    }
    run.count(scope, HISTORY_COST.exit);
    if (next === undefined) return value;
    if (scope.stopped) throw STOPPED;
    state = next;
  }
}

function choose(state: ChoiceState, input: unknown, context: Context): State {
  for (const choice of state.choices) if (choice.test(input, context)) return choice.next;
  if (state.default !== undefined) return state.default;
  throw new StatesError(
    "States.NoChoiceMatched",
    `state ${state.name}: no choice matched and there is no Default`,
  );
}

/** A Task or a Map: one attempt after another as Retry says, then Catch, else the error goes on. */
async function fallible(
  run: Run,
  scope: Scope,
  state: TaskState | MapState,
  input: unknown,
  context: Context,
): Promise<{ value: unknown; next: State | undefined }> {
  const attempts = state.retry.length === 0 ? NO_ATTEMPTS : state.retry.map(() => 0);
  for (;;) {
    try {
      const result =
        state.type === "Task"
          ? await runTask(run, state, input, context)
          : await runMap(run, scope, state, input, context);
      return { value: state.resultPath(input, result), next: state.next };
    } catch (error) {
      if (error === STOPPED || scope.stopped) throw STOPPED;
      const name = error instanceof Error ? error.name : "Error";
      // As in Step Functions: a runtime error (a path with no value) is neither retried nor caught.
      if (name === "States.Runtime") throw error;
      const index = state.retry.findIndex((r) => r.all || r.errors.has(name));
      const retrier = state.retry[index];
      if (retrier !== undefined && attempts[index]! < retrier.maxAttempts) {
        await run.sleep(retryDelayMs(retrier, attempts[index]!, run.options.retryIntervalMs), scope);
        attempts[index]!++;
        if (scope.stopped) throw STOPPED;
        run.count(scope, HISTORY_COST.retry[state.type]);
        continue;
      }
      const catcher = state.catch.find((c) => c.all || c.errors.has(name));
      if (catcher === undefined) throw error;
      const output = { Error: name, Cause: error instanceof Error ? error.message : String(error) };
      return { value: catcher.resultPath(input, output), next: catcher.next };
    }
  }
}

const NO_ATTEMPTS: number[] = [];

function retryDelayMs(
  retrier: {
    intervalSeconds: number;
    backoffRate: number;
    maxDelaySeconds: number | undefined;
    fullJitter: boolean;
  },
  attempt: number,
  override: number | undefined,
): number {
  if (override !== undefined) return override;
  let seconds = retrier.intervalSeconds * retrier.backoffRate ** attempt;
  if (retrier.maxDelaySeconds !== undefined) seconds = Math.min(seconds, retrier.maxDelaySeconds);
  const ms = seconds * 1000;
  return retrier.fullJitter ? Math.floor(Math.random() * (ms + 1)) : ms;
}

async function runTask(run: Run, state: TaskState, input: unknown, context: Context): Promise<unknown> {
  const handler = run.options.handlers[state.handler]!;
  const pending = handler(state.parameters === undefined ? input : state.parameters(input, context));
  if (state.timeoutMs === undefined) return pending;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StatesError(
            "States.Timeout",
            `state ${state.name}: the task did not answer within its TimeoutSeconds (${state.timeoutMs! / 1000} s)`,
          ),
        ),
      state.timeoutMs,
    );
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** One attempt of an inline Map: at most maxConcurrency iterations at once; the first failure stops the rest. */
function runMap(
  run: Run,
  parent: Scope,
  state: MapState,
  input: unknown,
  context: Context,
): Promise<unknown[]> {
  const items = state.itemsPath === undefined ? input : valueAt(state.itemsPath, input, context, state.name);
  if (!Array.isArray(items))
    return Promise.reject(
      new StatesError(
        "States.Runtime",
        `state ${state.name}: the Map's items (${state.itemsPath?.text ?? "$"}) are not an array`,
      ),
    );
  const scope = parent.child();
  const results = new Array<unknown>(items.length);
  return new Promise((resolve, reject) => {
    let started = 0;
    let finished = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      run.stop(scope);
      reject(error);
    };
    const launch = () => {
      while (!failed && started < items.length && started - finished < state.maxConcurrency) {
        const index = started++;
        let itemInput: unknown;
        try {
          itemInput =
            state.itemSelector === undefined
              ? items[index]
              : state.itemSelector(input, {
                  ...context,
                  Map: { Item: { Index: index, Value: items[index] } },
                });
        } catch (error) {
          fail(error);
          return;
        }
        run.count(scope, HISTORY_COST.iteration);
        runStates(run, scope, state.processor.start, itemInput, context).then(
          (output) => {
            if (failed) return;
            run.count(scope, HISTORY_COST.iteration);
            results[index] = output;
            if (++finished === items.length) resolve(results);
            else launch();
          },
          (error: unknown) => {
            if (failed) return;
            run.count(scope, HISTORY_COST.iteration);
            fail(error);
          },
        );
      }
    };
    if (items.length === 0) resolve(results);
    else launch();
  });
}

/** An error under a given name: a Fail state's Error, as Step Functions reports it. */
function named(name: string, cause: string): Error {
  const error = new Error(cause);
  error.name = name;
  return error;
}

/** The execution's failure, under the name Retry/Catch saw (or a Fail state's Error). */
function failure(error: unknown): ExecutionFailedError {
  const name = error instanceof Error ? error.name : "Error";
  const cause = error instanceof Error ? error.message : String(error);
  return new ExecutionFailedError(name, cause, { cause: error });
}

function unreachable(state: never): never {
  throw new Error(`unknown state ${JSON.stringify(state)}`);
}
