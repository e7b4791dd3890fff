import type { RunEvent } from "../core/events.ts";

/** What the state machine does next. Small on purpose: ids and an action, never the conversation. */
export type NextAction = { action: "model" } | { action: "tools"; callIds: string[] } | { action: "done" };

export interface ExecutionInput {
  runId: string;
  generation: number;
  next: NextAction;
  /** The lease owner this execution runs under. */
  owner: string;
}

/** Starts executions of the run state machine (in-process, or Step Functions). */
export interface Orchestrator {
  /** Run (or start) one execution of the state machine for this generation. */
  execute(input: ExecutionInput): Promise<void>;
  /** The lease owner name an execution of this generation will hold. */
  leaseOwnerFor(run: { runId: string; generation: number }): string;
  /** Whether a lease owner (a process, an execution) is still alive. */
  isAlive(owner: string): Promise<boolean>;
}

export interface Clock {
  now(): Date;
}

export interface Ids {
  runId(): string;
}

/** Named places where a test can make the process die, as a kill would. */
export type CrashPoint =
  | "model:before"
  | "model:after-call"
  | "model:after-append"
  | "tool:after-start"
  | "tool:after-run"
  | "tool:after-append";

export interface Faults {
  /** Called as execution passes a crash point; exits the process when told to. */
  reached(point: CrashPoint): void;
}

/** Hears about every event a step appends (the CLI prints them). */
export interface Observer {
  appended(runId: string, event: RunEvent): void;
}
