import { setMaxListeners } from "node:events";
import { keepLease } from "../../adapters/local/leaseKeeper.ts";
import {
  forgetOwner,
  isLocalOwnerAlive,
  localExecutionOf,
  localOwner,
  markEnded,
  markExecuting,
  markNamed,
} from "../../adapters/local/processLiveness.ts";
import { errorMessage, RetryableError, RunCancelledError } from "../../core/errors.ts";
import type { EventStore } from "../../ports/eventStore.ts";
import type { ExecutionInput, ExecutionReport, Orchestrator } from "../../ports/runtime.ts";
import type { ControlDeps, StepDeps } from "../../steps/deps.ts";
import type { ToolGroups } from "../../workflow/toolGroups.ts";
import { watchForCancel } from "../cancelWatch.ts";
import { ExecutionTimedOutError } from "./asl/errors.ts";
import { type Execution, startExecution } from "./asl/execute.ts";
import type { Machine } from "./asl/machine.ts";
import { ExecutionTasks } from "./executionTasks.ts";
import { compileLocalMachine, groupNames, LOCAL_CONTEXT } from "./localMachine.ts";

export interface LocalOrchestratorOptions {
  /** The step deps; a function because they and this orchestrator refer to each other. */
  deps: () => StepDeps;
  store: EventStore;
  leaseMs: number;
  /** Replaces every Retry interval (ms); the ASL's own backoff when absent. */
  retryIntervalMs?: number;
  /** How often a running execution looks for a cancel in its log (one written by another process). @default 500 */
  cancelPollMs?: number;
  /** The longest one execution may take, in seconds (the definition's TimeoutSeconds). @default RUN_DEFINITION's: 24 h */
  executionTimeoutSeconds?: number;
  /** Tool groups (checked), routed as a deployment with the same `toolGroups` routes them, each group's Task served by RunTool's step. @default none */
  toolGroups?: ToolGroups;
  /**
   * Told about an execution a step of another one asked for (a sub-agent's child, a parent its
   * child resumed) that failed: it runs beside the one that asked, which does not fail with it.
   * @default writes to stderr
   */
  onError?: (input: ExecutionInput, error: unknown) => void;
}

/**
 * The executions steps of one outermost execution asked for, which it waits for before it returns.
 * Handed down explicitly: async context storage would turn on promise hooks for the whole process,
 * about a tenth of a turn's CPU (test/architecture/promiseHooks.test.ts).
 */
interface Started {
  readonly runs: Set<Promise<void>>;
  closed: boolean;
}

/** Runs lib/workflow's state machine in this process (lib/runtime/local/asl), its tasks served by lib/steps directly. */
export class LocalOrchestrator implements Orchestrator {
  /** The definition, compiled once here (localMachine.ts). */
  private readonly machine: Machine;
  /** What stops each execution running in this process, by its lease owner. */
  private readonly executions = new Map<string, AbortController>();

  constructor(private readonly options: LocalOrchestratorOptions) {
    this.machine = compileLocalMachine(options.toolGroups, options.executionTimeoutSeconds);
  }

  leaseOwnerFor(): string {
    // Alive from the moment it is named: between claiming the lease and executing, another
    // resumer in this process must find the lease held, not free to take over.
    const owner = localOwner();
    markNamed(owner);
    return owner;
  }

  async isAlive(owner: string): Promise<boolean> {
    return isLocalOwnerAlive(owner);
  }

  /**
   * What became of a local owner's execution (see localExecutionOf): one named here within a
   * lease time is `running` (its claimer executes it next); one named longer ago, or that died
   * with its process, is `none`, so a retry executes its generation.
   */
  async executionOf(owner: string): Promise<"none" | "running" | "ended"> {
    // A claimer writes two or three events between naming an owner and executing it: a lease time
    // is far more than that takes, and how long anyone else waits for a lease anyway.
    return localExecutionOf(owner, this.options.leaseMs);
  }

  /**
   * Abort an execution of this process: its model call or tool stops now, and it ends without
   * writing more. One in another process sees the cancel in its log at its next look.
   */
  async stop(owner: string, reason: string): Promise<boolean> {
    const execution = this.executions.get(owner);
    if (!execution || execution.signal.aborted) return false;
    execution.abort(new RunCancelledError(reason));
    return true;
  }

  /**
   * Execute a generation to its end, renewing the lease while it runs. When
   * it hands over to the next generation, that one runs next, here, after it
   * (never nested in it), and so on until the run rests.
   */
  async execute(input: ExecutionInput): Promise<void> {
    // Executions a step of this one asks for (a sub-agent's child started, a parent resumed by its
    // child's end) run beside it, never nested in a step (whose timeout would bound them), and this
    // outermost execute waits for them too, so a caller that awaits a run awaits its tree (see joining).
    const started: Started = { runs: new Set(), closed: false };
    let failure: { error: unknown } | undefined;
    try {
      await this.executeChain(input, started);
    } catch (error) {
      failure = { error };
    }
    while (started.runs.size > 0) {
      const runs = [...started.runs];
      started.runs.clear();
      await Promise.all(runs);
    }
    started.closed = true;
    if (failure) throw failure.error;
  }

  /**
   * The orchestrator a step of an execution under `started` controls runs with: `execute` joins that
   * outermost execution; once it has ended (a step's late call), it is `outer`'s, as anyone's.
   */
  private joining(started: Started, outer: Orchestrator): Orchestrator {
    return overriding(outer, {
      execute: async (input) => {
        if (started.closed) return outer.execute(input);
        const run = this.executeChain(input, started).catch((error: unknown) =>
          this.failedBeside(input, error),
        );
        started.runs.add(run);
      },
    });
  }

  private failedBeside(input: ExecutionInput, error: unknown): void {
    if (this.options.onError) this.options.onError(input, error);
    else process.stderr.write(`runlog: run ${input.runId}: ${errorMessage(error)}\n`);
  }

  /** One generation's execution and the ones it hands over to. */
  private async executeChain(input: ExecutionInput, started: Started): Promise<void> {
    for (let current: ExecutionInput | undefined = input; current; ) {
      const { successor, error } = await this.executeOne(current, started);
      // Once handed over, the run is the successor's, whatever became of this execution's last states.
      if (!successor && error !== undefined) throw error;
      current = successor;
    }
  }

  /** One execution; the next generation's input if it handed over to one. */
  private async executeOne(
    input: ExecutionInput,
    started: Started,
  ): Promise<{ successor?: ExecutionInput; error?: unknown }> {
    const { store, leaseMs } = this.options;
    const deps = this.options.deps();
    // The control its steps start and resume runs with: executions they ask for join this one's tree.
    const outerControl = deps.control;
    let control: ControlDeps | undefined;
    const joinedControl = (outer: ControlDeps): ControlDeps => {
      control ??= { ...outer, orchestrator: this.joining(started, outer.orchestrator) };
      return control;
    };
    const stepDeps: StepDeps = outerControl
      ? { ...deps, control: () => joinedControl(outerControl()) }
      : deps;
    const stop = new AbortController();
    // Every step under way listens to this signal, and a tool batch runs any number of steps at
    // once; each removes its listener when it ends, so the count is bounded by the batch, not a leak.
    setMaxListeners(0, stop.signal);
    const tasks = new ExecutionTasks(stepDeps, stop);
    let successor: ExecutionInput | undefined;
    // The Handoff task starts the next generation through this: queued, to run once this execution ends.
    const owners = new Map<number, string>();
    const handover = overriding(this, {
      // One owner per generation for this execution, so a retried handoff finds its own claim.
      leaseOwnerFor: (run) => {
        const owner = owners.get(run.generation) ?? this.leaseOwnerFor();
        owners.set(run.generation, owner);
        return owner;
      },
      execute: async (next) => {
        // Queued to run here as soon as this execution ends: already as good as running.
        markExecuting(next.owner);
        successor = next;
      },
    });
    const stopRenewing = keepLease({
      store,
      runId: input.runId,
      owner: input.owner,
      leaseMs,
      controller: stop,
      closing: () => tasks.closing,
    });
    const stopWatching = watchForCancel({
      runId: input.runId,
      lastEvent: async () => (await deps.logs.load(input.runId)).at(-1),
      controller: stop,
      intervalMs: this.options.cancelPollMs ?? 500,
      // The lease keeper's rule: an execution that cannot read its run for a lease time stops.
      blindMs: leaseMs,
    });
    markExecuting(input.owner);
    this.executions.set(input.owner, stop);
    let execution: Execution | undefined;
    let error: unknown;
    try {
      execution = startExecution(this.machine, input, {
        handlers: tasks.handlers(groupNames(this.options.toolGroups), handover, leaseMs),
        context: LOCAL_CONTEXT,
        retryIntervalMs: this.options.retryIntervalMs,
      });
      await execution.result;
    } catch (failure) {
      const timedOut = timedOutError(input, failure);
      // The interpreter ends the execution, not the step under way: stop it, as its Lambda would die.
      if (timedOut) stop.abort(timedOut);
      error =
        timedOut ??
        new RetryableError(
          // The cause in the message too: it is what a user must act on (a full disk, a bad file).
          `run ${input.runId}: execution of generation ${input.generation} failed: ${errorMessage(tasks.lastError ?? failure)}`,
          {
            cause: tasks.lastError ?? failure,
            runId: input.runId,
            generation: input.generation,
          },
        );
    } finally {
      stopRenewing();
      stopWatching();
      markEnded(input.owner);
      this.executions.delete(input.owner);
      // An owner named for a handoff that did not happen must not look alive for the rest of the process.
      for (const owner of owners.values()) if (owner !== successor?.owner) forgetOwner(owner);
    }
    // Stopped for its lease (taken over, or no longer renewable): the execution fails, saying why,
    // even when the state machine ended it quietly. A cancel is an end, not a failure.
    const reason = stop.signal.aborted ? stop.signal.reason : undefined;
    if (error === undefined && reason !== undefined && !(reason instanceof RunCancelledError)) error = reason;
    this.report({
      runId: input.runId,
      generation: input.generation,
      historyEvents: execution?.history.events ?? 0,
      tasks: { ...execution?.history.tasks },
      ended: successor ? "handed_off" : error === undefined ? "succeeded" : "failed",
    });
    return { ...(successor ? { successor } : {}), ...(error === undefined ? {} : { error }) };
  }

  private report(report: ExecutionReport): void {
    this.options.deps().observer?.executionEnded?.(report);
  }
}

/** `base` as an orchestrator, but for the members `own` gives (always its own `execute`). */
function overriding(
  base: Orchestrator,
  own: Pick<Orchestrator, "execute"> & Partial<Orchestrator>,
): Orchestrator {
  return {
    leaseOwnerFor: (run) => base.leaseOwnerFor(run),
    isAlive: (owner, claimedAt) => base.isAlive(owner, claimedAt),
    executionOf: (owner) => base.executionOf(owner),
    stop: (owner, reason) => base.stop(owner, reason),
    ...own,
  };
}

/** The error of an execution the interpreter ended at its TimeoutSeconds (as Step Functions' TIMED_OUT), if it did. */
function timedOutError(input: ExecutionInput, failure: unknown): RetryableError | undefined {
  if (!(failure instanceof ExecutionTimedOutError)) return undefined;
  return new RetryableError(
    `run ${input.runId}: execution of generation ${input.generation} timed out (the definition's TimeoutSeconds); the run can be resumed`,
    { cause: failure, runId: input.runId, generation: input.generation },
  );
}
