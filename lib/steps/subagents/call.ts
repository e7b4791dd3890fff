import type { ToolCall } from "../../core/eventFields.ts";
import type { RunEvent, ToolResult } from "../../core/events.ts";
import { childRunId, DEFAULT_MAX_SUBAGENT_DEPTH, MAX_SUBAGENT_DEPTH } from "../../core/subagents.ts";
import type { Tool } from "../../ports/tool.ts";
import type { StepDeps, StepInput } from "../deps.ts";
import { writeNext } from "../writeNext.ts";
import { answerCall } from "./answer.ts";
import { subagentDepth, tooDeep } from "./depth.ts";
import { startChild } from "./startChild.ts";

/**
 * The RunTool step of a sub-agent call: write `tool_started` naming the child (so from here on the
 * log says the call waits for that child, never that it was interrupted), then start the child. The
 * step ends there: the parent's execution goes on to find the call unanswered and rests `waiting`
 * (or finds the child's answer already there), and the child's end answers it (answer.ts). Undefined
 * when the call is under way; the call's result when it already had one, or when the child would
 * be deeper than the tool's `maxDepth`: then the call is answered with an error and starts nothing.
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
  // Read up the parents' own logs, so a retry or a resume anywhere refuses the same calls.
  const first = log[0];
  if (first?.type !== "run_started")
    throw new Error(`unreachable: run ${input.runId} without its run_started`);
  // A tool made by hand may ask for more: no tree grows deeper than a look-up goes (lookUp.ts).
  const maxDepth = Math.min(spec.maxDepth ?? DEFAULT_MAX_SUBAGENT_DEPTH, MAX_SUBAGENT_DEPTH);
  const depth = await subagentDepth(deps.store, first, maxDepth);
  const refused =
    depth >= maxDepth ? tooDeep(input.runId, depth, call.name, spec.agent, maxDepth) : undefined;
  const claim = await writeNext<"run" | "started" | ToolResult>(
    deps,
    input.runId,
    input.generation,
    (_, f) => {
      // A sub-agent call is answered by a tool_result (a transferred event answers only a transfer call).
      const result = f.batch?.results.get(call.id);
      if (result?.type === "tool_result") return { done: result };
      if (f.batch?.started.has(call.id)) return { done: "started" };
      if (refused) {
        // Nothing started, so nothing to wait for: the answer is the call's only event.
        const answer = { type: "tool_result" as const, callId: call.id, name: call.name, ...refused };
        return { append: answer, result: (event) => event as ToolResult };
      }
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
