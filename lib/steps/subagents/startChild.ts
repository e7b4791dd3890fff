import { IdTakenError, PermanentError } from "../../core/errors.ts";
import type { ToolCall } from "../../core/eventFields.ts";
import type { RunEvent } from "../../core/events.ts";
import { type ChildAnswer, childRunId } from "../../core/subagents.ts";
import type { ControlDeps } from "../deps.ts";
import { startRun } from "../start.ts";

/**
 * Start the child run of a sub-agent call (or find it: the start is idempotent by the child's
 * derived id, so a retried step, a resume or a sweep that calls this again starts nothing more). The
 * child inherits the parent's owner and metadata. Undefined when the child exists or started; the
 * answer for the parent's call when it cannot ever start (an unknown agent, its id taken by another
 * run): that is the call's result, never a retry.
 */
export async function startChild(
  control: ControlDeps,
  parentLog: readonly RunEvent[],
  call: ToolCall,
  agent: string,
  input: string,
): Promise<ChildAnswer | undefined> {
  const first = parentLog[0];
  if (first?.type !== "run_started") throw new Error(`unreachable: run log without its run_started`);
  const runId = childRunId(first.runId, call.id);
  try {
    await startRun(
      { ...control, ids: { runId: () => runId } },
      {
        agent,
        input,
        runId,
        parent: { runId: first.runId, callId: call.id },
        ...(first.owner === undefined ? {} : { owner: first.owner }),
        ...(first.metadata === undefined ? {} : { metadata: first.metadata }),
      },
    );
    control.faults.reached("subagent:after-child-start");
    return undefined;
  } catch (error) {
    if (!(error instanceof PermanentError || error instanceof IdTakenError)) throw error;
    return { content: `sub-agent ${agent} could not start run ${runId}: ${error.message}`, isError: true };
  }
}
