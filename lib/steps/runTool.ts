import { InvalidInputError } from "../core/errors.ts";
import type { ToolCall, ToolResult } from "../core/events.ts";
import { isCleared } from "../core/log.ts";
import { INTERRUPTED_TOOL_RESULT, rejectedToolResult } from "../core/messages.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { findTool, parseArguments, runWithTimeout, type ToolOutcome } from "./executeTool.ts";
import { assertCurrent, currentRun, writeNext } from "./writeNext.ts";

export interface RunToolInput extends StepInput {
  callId: string;
}

export interface RunToolOutput {
  callId: string;
  isError: boolean;
}

/**
 * The RunTool task, one per call. A call with a result is done; a call that
 * started and has no result may have had its effect, so it is answered as
 * interrupted (re-run only if the tool is idempotent); a call never started is
 * run, with `tool_started` written first.
 */
export async function runTool(deps: StepDeps, input: RunToolInput): Promise<RunToolOutput> {
  const events = await currentRun(deps, input.runId);
  const facts = deps.logs.factsOf(input.runId, events);
  assertCurrent(input.runId, facts, input.generation);
  const call = facts.batch?.response.toolCalls.find((c) => c.id === input.callId);
  if (!call) throw new InvalidInputError(`run ${input.runId} has no open tool call ${input.callId}`);
  const existing = facts.batch!.results.get(call.id);
  if (existing) return output(existing);

  const batch = facts.batch!;
  if (!isCleared(batch, call.id)) {
    const decision = batch.decisions.get(call.id);
    if (!decision)
      throw new InvalidInputError(`call ${call.id} of run ${input.runId} is waiting for approval`);
    const content = rejectedToolResult(decision.by, decision.reason);
    return record(deps, input, call, { content, isError: true });
  }
  const agent = deps.agents(facts.agent!);
  const tool = findTool(agent, call.name);
  if (!tool) {
    const known = agent.tools.map((t) => t.name).join(", ");
    return record(deps, input, call, {
      content: `unknown tool ${call.name}; available: ${known}`,
      isError: true,
    });
  }
  const parsed = parseArguments(tool, call);
  if ("error" in parsed) return record(deps, input, call, parsed.error);

  const claim = await writeNext<"run" | "interrupted" | ToolResult>(
    deps,
    input.runId,
    input.generation,
    (_, f) => {
      const result = f.batch?.results.get(call.id);
      if (result) return { done: result };
      if (f.batch?.started.has(call.id)) return { done: tool.idempotent ? "run" : "interrupted" };
      return { append: { type: "tool_started", callId: call.id, name: call.name }, result: () => "run" };
    },
  );
  if (typeof claim === "object") return output(claim);
  if (claim === "interrupted") {
    return record(deps, input, call, { content: INTERRUPTED_TOOL_RESULT, isError: true }, true);
  }
  deps.faults.reached("tool:after-start");
  const startedAt = Date.now();
  const outcome = await runWithTimeout(
    tool,
    parsed.args,
    { runId: input.runId, callId: call.id },
    deps.signal,
  );
  deps.faults.reached("tool:after-run");
  const result = await record(deps, input, call, outcome, false, Date.now() - startedAt);
  deps.faults.reached("tool:after-append");
  return result;
}

/** Append the call's result unless one is already there (then that one stands). */
async function record(
  deps: StepDeps,
  input: RunToolInput,
  call: ToolCall,
  outcome: ToolOutcome,
  interrupted = false,
  ms?: number,
): Promise<RunToolOutput> {
  return writeNext(deps, input.runId, input.generation, (_, facts) => {
    const result = facts.batch?.results.get(call.id);
    if (result) return { done: output(result) };
    return {
      append: {
        type: "tool_result",
        callId: call.id,
        name: call.name,
        content: outcome.content,
        isError: outcome.isError,
        ...(interrupted ? { interrupted: true } : {}),
        ...(ms === undefined ? {} : { ms }),
      },
      result: () => ({ callId: call.id, isError: outcome.isError }),
    };
  });
}

const output = (result: ToolResult): RunToolOutput => ({ callId: result.callId, isError: result.isError });
