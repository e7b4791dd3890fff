import type { ModelResolver } from "../../lib/ports/model.ts";
import type { ExecutionInput, Orchestrator } from "../../lib/ports/runtime.ts";

/**
 * Models for tests of control operations: built (a resume checks the run's model can be before
 * it writes anything), never called.
 */
export const modelsNeverCalled: ModelResolver = (spec) => ({
  spec,
  call: async () => {
    throw new Error(`model ${spec} is not called in this test`);
  },
});

/** An orchestrator whose executors are all gone: executions are recorded in `executed`, not run. */
export function recordingOrchestrator(executed: ExecutionInput[] = []): Orchestrator {
  return {
    execute: async (input) => {
      executed.push(input);
    },
    leaseOwnerFor: ({ runId, generation }) => `${runId}-g${generation}`,
    isAlive: async () => false,
    executionOf: async () => "none",
    stop: async () => false,
  };
}
