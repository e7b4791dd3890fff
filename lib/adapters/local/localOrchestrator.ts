import "./withResolvers.ts";
import { StateMachine } from "aws-local-stepfunctions";
import { RetryableError, RunCancelledError } from "../../core/errors.ts";
import type { EventStore } from "../../ports/eventStore.ts";
import type { ExecutionInput, Orchestrator } from "../../ports/runtime.ts";
import { callModel } from "../../steps/callModel.ts";
import type { StepDeps } from "../../steps/deps.ts";
import { finish } from "../../steps/finish.ts";
import { recordModelFailure } from "../../steps/recordModelFailure.ts";
import { runTool } from "../../steps/runTool.ts";
import { renderDefinition, TASKS, type TaskName } from "../../workflow/definition.ts";
import { toWorkflowError } from "../../workflow/errors.ts";
import { isLocalOwnerAlive, localOwner, markActive } from "./processLiveness.ts";

export interface LocalOrchestratorOptions {
  /** The step deps; a function because they and this orchestrator refer to each other. */
  deps: () => StepDeps;
  store: EventStore;
  leaseMs: number;
  /** Replaces every Retry interval (ms); the ASL's own backoff when absent. */
  retryIntervalMs?: number;
  /** How often a running execution looks for a cancel in its log. @default 500 */
  cancelPollMs?: number;
}

const LOCAL_ARNS = Object.fromEntries(
  Object.keys(TASKS).map((task) => [task, `arn:aws:lambda:us-east-1:000000000000:function:runlog-${task}`]),
) as Record<TaskName, string>;

/** Runs lib/workflow's state machine in this process, its tasks served by lib/steps directly. */
export class LocalOrchestrator implements Orchestrator {
  private readonly machine = new StateMachine(renderDefinition(LOCAL_ARNS) as never, {
    validationOptions: { checkArn: false },
  });

  constructor(private readonly options: LocalOrchestratorOptions) {}

  leaseOwnerFor(): string {
    // Alive from the moment it is named: between claiming the lease and executing, another
    // resumer in this process must find the lease held, not free to take over.
    const owner = localOwner();
    markActive(owner, true);
    return owner;
  }

  async isAlive(owner: string): Promise<boolean> {
    return isLocalOwnerAlive(owner);
  }

  /** Execute one generation to its end, renewing the lease while it runs. */
  async execute(input: ExecutionInput): Promise<void> {
    const { store, leaseMs } = this.options;
    const stop = new AbortController();
    let lastError: unknown;
    const task =
      <I, O>(step: (deps: StepDeps, input: I) => Promise<O>) =>
      async (value: unknown) => {
        try {
          return (await step({ ...this.options.deps(), signal: stop.signal }, value as I)) as never;
        } catch (error) {
          lastError = error;
          throw toWorkflowError(error);
        }
      };
    const renew = setInterval(
      () => {
        const until = Date.now() + leaseMs;
        store.renewLease(input.runId, { owner: input.owner, until }).catch(() => {
          // A missed renewal only shortens the lease; fencing by generation keeps the log safe.
        });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    const watch = setInterval(() => {
      this.options
        .deps()
        .logs.load(input.runId)
        .then((events) => {
          const last = events.at(-1);
          if (last?.type === "cancelled")
            stop.abort(new RunCancelledError(`run ${input.runId} was cancelled by ${last.by}`));
        })
        .catch(() => {
          // The next tick looks again; a cancel is also seen by every step's next write.
        });
    }, this.options.cancelPollMs ?? 500);
    markActive(input.owner, true);
    try {
      const retry = this.options.retryIntervalMs;
      const execution = this.machine.run(input as never, {
        overrides: {
          taskResourceLocalHandlers: {
            CallModel: task(callModel),
            RunTool: task(runTool),
            RecordModelFailure: task(recordModelFailure),
            Finish: task(finish),
          },
          ...(retry === undefined
            ? {}
            : { retryIntervalOverrides: Object.fromEntries(Object.keys(TASKS).map((t) => [t, retry])) }),
        },
      });
      await execution.result;
    } catch (error) {
      throw new RetryableError(`run ${input.runId}: execution of generation ${input.generation} failed`, {
        cause: lastError ?? error,
      });
    } finally {
      clearInterval(renew);
      clearInterval(watch);
      markActive(input.owner, false);
    }
  }
}
