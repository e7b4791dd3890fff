import type { RunEvent } from "../core/events.ts";

/**
 * What the state machine does next. Small on purpose: ids and an action, never the conversation.
 * `handoff`: this execution has done its share of steps; a new one (the next generation) goes on.
 */
export type NextAction =
  | { action: "model" }
  /** `tools`: each call's tool name, in `callIds`' order (absent from a `next` written before they were added). */
  | { action: "tools"; callIds: string[]; tools?: string[] }
  | { action: "done" }
  | { action: "handoff" };

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
  /**
   * The lease owner name an execution of this generation will hold. `createdAt`: when the run
   * was created (its head's, its `run_started`'s time), so a run created again under an old id
   * gets names of its own.
   */
  leaseOwnerFor(run: { runId: string; generation: number; createdAt?: string }): string;
  /**
   * Whether a lease owner (a process, an execution) is still alive. `claimedAt` (epoch ms), when
   * known, is when the owner's lease was last claimed or renewed: an owner named moments ago may
   * not have started yet and still counts as alive.
   */
  isAlive(owner: string, claimedAt?: number): Promise<boolean>;
  /**
   * What became of the execution a lease owner names, without any grace for a start still to
   * come: `running`; `ended` (it ran and stopped, and a name is never run twice, so the run needs
   * a new generation); `none` (never started, or its process died: executing it now is safe).
   */
  executionOf(owner: string): Promise<"none" | "running" | "ended">;
  /**
   * Stop the execution a lease owner names, if it runs (a cancel): the state machine stops and a
   * model call or tool under way is aborted. False when nothing was running under that owner.
   */
  stop(owner: string, reason: string): Promise<boolean>;
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
  | "tool:after-append"
  | "handoff:after-claim"
  | "handoff:after-append"
  // Answering a transfer call (an agent's handoffs), just before and just after `transferred` is written.
  | "transfer:before-append"
  | "transfer:after-append"
  // Inside control operations (start, resume, send, fork, approve/reject, sweep): see lib/steps/generation/.
  | "control:after-claim"
  | "control:after-append"
  | "control:before-execute"
  | "fork:after-copy"
  | "decide:after-append"
  // Sub-agents (lib/steps/subagents/): a child run started, a parent's call answered by its child.
  | "subagent:after-child-start"
  | "subagent:after-answer";

/** The crash points every run passes (lib/runtime/configSchema.ts accepts these and the two lists below). */
export const CRASH_POINTS: readonly CrashPoint[] = [
  "model:before",
  "model:after-call",
  "model:after-append",
  "tool:after-start",
  "tool:after-run",
  "tool:after-append",
];

/**
 * Points inside a handoff to a new execution (lease moved, then `resumed`
 * written), which only long runs pass: accepted as a crash point, kept out
 * of CRASH_POINTS so every run still passes each of those.
 */
export const HANDOFF_CRASH_POINTS: readonly CrashPoint[] = ["handoff:after-claim", "handoff:after-append"];

/**
 * Points around a transfer between agents (`transferred` written), which only runs of agents with
 * handoffs pass: accepted as crash points, kept out of CRASH_POINTS for the same reason.
 */
export const TRANSFER_CRASH_POINTS: readonly CrashPoint[] = [
  "transfer:before-append",
  "transfer:after-append",
];

/**
 * Points inside the control operations (start, resume, send, fork, approve/reject, sweep), which
 * only those commands pass: accepted as crash points for the control matrix
 * (test/reliability/controlMatrix.test.ts), kept out of CRASH_POINTS for the same reason.
 */
export const CONTROL_CRASH_POINTS: readonly CrashPoint[] = [
  "control:after-claim",
  "control:after-append",
  "control:before-execute",
  "fork:after-copy",
  "decide:after-append",
];

/** Points only runs with sub-agent calls pass (test/reliability/subagentCrashes.test.ts). */
export const SUBAGENT_CRASH_POINTS: readonly CrashPoint[] = [
  "subagent:after-child-start",
  "subagent:after-answer",
];

export interface Faults {
  /** Called as execution passes a crash point; exits the process when told to. */
  reached(point: CrashPoint): void;
}

/** One execution of the state machine, as it ended (the local orchestrator reports them). */
export interface ExecutionReport {
  runId: string;
  generation: number;
  /** The events Step Functions would have put in this execution's history (a limit of 25,000). */
  historyEvents: number;
  /** How many times each Task state ran, by state name (`RunToolPayments` for a tool group's calls). */
  tasks?: Readonly<Record<string, number>>;
  /** `handed_off`: it ended by starting the next generation's execution. */
  ended: "succeeded" | "failed" | "handed_off";
}

/** Hears about every event a step appends (the CLI prints them). */
export interface Observer {
  appended(runId: string, event: RunEvent): void;
  /** Told when an execution ends, with its history size. */
  executionEnded?(report: ExecutionReport): void;
  /**
   * Told each piece of a model response's text as it streams in (not stored: the `model_response`
   * that follows holds the whole text). Only for watching (a live view): must not throw.
   */
  streamed?(runId: string, generation: number, delta: string): void;
}
