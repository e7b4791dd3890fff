import type { Rule } from "./choice.ts";
import type { Path, ResultPath, Template } from "./paths.ts";

/** One Retry entry, its defaults applied (Step Functions': 1 s, 3 attempts, rate 2, no jitter). */
export interface Retrier {
  readonly errors: ReadonlySet<string>;
  readonly all: boolean;
  readonly intervalSeconds: number;
  readonly maxAttempts: number;
  readonly backoffRate: number;
  readonly maxDelaySeconds: number | undefined;
  readonly fullJitter: boolean;
}

/** One Catch entry: ResultPath absent puts `{ Error, Cause }` in place of the input. */
export interface Catcher {
  readonly errors: ReadonlySet<string>;
  readonly all: boolean;
  readonly resultPath: ResultPath;
  next: State;
}

interface Base {
  readonly name: string;
}

/** A state that transitions: `next` undefined means End. */
interface Transition {
  next: State | undefined;
}

/** Task and Map: they fail, retry and catch. */
interface Fallible {
  readonly retry: readonly Retrier[];
  readonly catch: readonly Catcher[];
  readonly resultPath: ResultPath;
}

export interface TaskState extends Base, Transition, Fallible {
  readonly type: "Task";
  /** The local handler the Resource maps to. */
  readonly handler: string;
  readonly parameters: Template | undefined;
  readonly timeoutMs: number | undefined;
}

export interface MapState extends Base, Transition, Fallible {
  readonly type: "Map";
  readonly itemsPath: Path | undefined;
  readonly maxConcurrency: number;
  readonly itemSelector: Template | undefined;
  readonly processor: Machine;
}

export interface ChoiceState extends Base {
  readonly type: "Choice";
  readonly choices: readonly { readonly test: Rule; next: State }[];
  default: State | undefined;
}

export interface PassState extends Base, Transition {
  readonly type: "Pass";
  readonly result: unknown;
  readonly hasResult: boolean;
  readonly resultPath: ResultPath;
}

export interface SucceedState extends Base {
  readonly type: "Succeed";
}

export interface FailState extends Base {
  readonly type: "Fail";
  readonly error: string;
  readonly cause: string;
}

export type State = TaskState | MapState | ChoiceState | PassState | SucceedState | FailState;

/** A definition, or a Map's ItemProcessor, prepared to run: every path parsed, every Next resolved. */
export interface Machine {
  readonly start: State;
  /** The top-level TimeoutSeconds (undefined inside a Map). */
  readonly timeoutSeconds: number | undefined;
  /** Every handler a Task of this machine or its Maps names. */
  readonly handlers: ReadonlySet<string>;
}
