import type { Orchestrator } from "../../ports/runtime.ts";
import { callModel } from "../../steps/callModel.ts";
import type { ControlDeps, StepDeps } from "../../steps/deps.ts";
import { finish } from "../../steps/finish.ts";
import { handOff } from "../../steps/handoff.ts";
import { recordModelFailure } from "../../steps/recordModelFailure.ts";
import { runTool } from "../../steps/runTool.ts";
import type { TaskName } from "../../workflow/definition.ts";
import { toWorkflowError } from "../../workflow/errors.ts";
import { groupTaskName } from "../../workflow/toolGroups.ts";
import type { Handler } from "./asl/execute.ts";

/** Tasks that give the run up: they run even after a stop, and the lease is theirs to hand over or release. */
const CLOSING_TASKS = new Set<TaskName>(["Finish", "Handoff"]);

/**
 * What one local execution's Task states call: lib/steps' steps, served directly, each given the
 * execution's deps and its stop signal. Once the execution is stopped, only the closing tasks run,
 * and whatever a step throws, the stop is why; a failure reaches the interpreter by the name the
 * definition's Retry and Catch match (toWorkflowError).
 */
export class ExecutionTasks {
  /** Set once a closing task has started: the lease is then its to hand over or release. */
  closing = false;
  /** What the last step that failed threw (or the stop that failed it). */
  lastError: unknown;

  constructor(
    private readonly deps: StepDeps,
    private readonly stop: AbortController,
  ) {}

  /**
   * The handler of each Resource: the tasks', and each tool group's Task running the same RunTool
   * step (in a stack, the same code in the group's function). Handoff starts the next generation
   * through `handover`.
   */
  handlers(groups: readonly string[], handover: Orchestrator, leaseMs: number): Record<string, Handler> {
    return {
      CallModel: this.task("CallModel", callModel),
      RunTool: this.task("RunTool", runTool),
      ...Object.fromEntries(groups.map((group) => [groupTaskName(group), this.task("RunTool", runTool)])),
      RecordModelFailure: this.task("RecordModelFailure", recordModelFailure),
      Finish: this.task("Finish", finish),
      Handoff: this.task("Handoff", (deps, value: Parameters<typeof handOff>[1]) =>
        handOff({ ...deps, orchestrator: handover, leaseMs } satisfies ControlDeps, value),
      ),
    };
  }

  private task<I, O>(name: TaskName, step: (deps: StepDeps, input: I) => Promise<O>): Handler {
    const { stop } = this;
    return async (value: unknown) => {
      if (CLOSING_TASKS.has(name)) this.closing = true;
      // Once stopped, only the closing tasks run, and whatever a step throws, the stop is why.
      const stopped = () =>
        stop.signal.aborted && !CLOSING_TASKS.has(name) ? stop.signal.reason : undefined;
      try {
        const reason = stopped();
        if (reason !== undefined) throw reason;
        return (await step({ ...this.deps, signal: stop.signal }, value as I)) as never;
      } catch (error) {
        this.lastError = stopped() ?? error;
        throw toWorkflowError(this.lastError);
      }
    };
  }
}
