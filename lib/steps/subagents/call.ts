import type { ToolCall } from "../../core/eventFields.ts";
import type { RunEvent, ToolResult } from "../../core/events.ts";
import { childRunId } from "../../core/subagents.ts";
import type { Tool } from "../../ports/tool.ts";
import type { StepDeps, StepInput } from "../deps.ts";
import { writeNext } from "../writeNext.ts";
import { answerCall } from "./answer.ts";
import { startChild } from "./startChild.ts";

/**
 * The RunTool step of a sub-agent call: write `tool_started` naming the child (so from here on the
 * log says the call waits for that child, never that it was interrupted), then start the child. The
 * step ends there: the parent's execution goes on to find the call unanswered and rests `waiting`
 * (or finds the child's answer already there), and the child's end answers it (answer.ts). Undefined
 * when the call is under way; the call's result when it already had one.
 */
export async function callSubagent(
  deps: StepDeps,
  input: StepInput,
  log: readonly RunEvent[],
  call: ToolCall,
  tool: Tool<unknown>,
  args: { input: string },
): Promise<ToolResult | undefined> {
  const spec = tool.subagent!;
  const control = deps.control?.();
  const child = childRunId(input.runId, call.id);
  const claim = await writeNext<"run" | "started" | ToolResult>(
    deps,
    input.runId,
    input.generation,
    (_, f) => {
      // A sub-agent call is answered by a tool_result (a transferred event answers only a transfer call).
      const result = f.batch?.results.get(call.id);
      if (result?.type === "tool_result") return { done: result };
      if (f.batch?.started.has(call.id)) return { done: "started" };
      return {
        append: { type: "tool_started", callId: call.id, name: call.name, child },
        result: () => "run",
      };
    },
  );
  if (typeof claim === "object") return claim;
  if (claim === "run") deps.faults.reached("tool:after-start");
  if (!control) {
    throw new Error(
      `unreachable: sub-agent call ${call.id} of run ${input.runId} in a runtime that cannot start runs`,
    );
  }
  const failed = await startChild(control, log, call, spec.agent, args.input);
  if (failed) await answerCall(control, input.runId, call.id, failed);
  return undefined;
}
