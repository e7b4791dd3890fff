import { InvalidInputError, StaleError } from "../core/errors.ts";
import type { ToolCall } from "../core/eventFields.ts";
import type { NewEvent, ToolResult, Transferred } from "../core/events.ts";
import { isCleared } from "../core/log.ts";
import { INTERRUPTED_TOOL_RESULT, rejectedToolResult } from "../core/messages.ts";
import { transferToolName } from "../core/transfers.ts";
import { assertCurrent } from "./appendNext.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { findTool, parseArguments, runWithTimeout, type ToolRun } from "./executeTool.ts";
import { currentRun } from "./logReads.ts";
import { recordedMcpTool } from "./mcpTools.ts";
import { recordedAnswer } from "./recordedAnswer.ts";
import { stepDeadline } from "./stepBudget.ts";
import { storeWithin } from "./storeRetry.ts";
import { callSubagent } from "./subagents/call.ts";
import { awaitTurn } from "./toolTurns.ts";
import { decideTransfer, transferOf } from "./transfer.ts";
import type { Kept } from "./unstoredWork.ts";
import { writeNext } from "./writeNext.ts";

export interface RunToolInput extends StepInput {
  callId: string;
  /** The Map's list of the batch's call ids (see toolTurns.ts). */
  batch?: readonly string[] | undefined;
}

export interface RunToolOutput {
  callId: string;
  isError: boolean;
}

/**
 * The RunTool task, one per call. A call with a result is done; a call that
 * started and has no result may have had its effect, so it is answered as
 * interrupted (re-run only if the tool is idempotent, and its result then says
 * `rerun`); a call never started is
 * run, with `tool_started` written first. A result is stored within the step's
 * time budget through store failures, and one that still could not be stored
 * is kept in this process for the step's retry (see unstoredWork.ts).
 */
export async function runTool(deps: StepDeps, input: RunToolInput): Promise<RunToolOutput> {
  const deadline = stepDeadline("RunTool", deps.clock.now(), deps.stepTimeoutSeconds);
  const events = await currentRun(deps, input.runId);
  const facts = deps.logs.factsOf(input.runId, events);
  assertCurrent(input.runId, facts, input.generation);
  const call = facts.batch?.response.toolCalls.find((c) => c.id === input.callId);
  if (!call) throw new InvalidInputError(`run ${input.runId} has no open tool call ${input.callId}`);
  const kept = deps.unstored.toolOutcomes;
  const existing = facts.batch!.results.get(call.id);
  if (existing) {
    kept.forget(input.runId, input.generation, call.id);
    return output(existing);
  }
  // This process ran the call and could not store its result: store it now, never "interrupted".
  const ran = kept.get(input.runId, input.generation, call.id);
  if (ran) return recordRun(deps, input, call, ran, deadline);

  // This call has written nothing yet: it writes after the calls ahead of it in the batch.
  if (!facts.batch!.started.has(call.id)) await awaitTurn(deps, input);
  const batch = facts.batch!;
  if (!isCleared(batch, call.id)) {
    const decision = batch.decisions.get(call.id);
    if (!decision)
      throw new InvalidInputError(`call ${call.id} of run ${input.runId} is waiting for approval`);
    const content = rejectedToolResult(decision.onBehalfOf ?? decision.by, decision.reason);
    return record(deps, input, call, { content, isError: true }, deadline);
  }
  // The agent that asked for the call answers it, even once another call of the batch transferred.
  const agent = deps.agents(batch.agent ?? facts.agent!);
  const to = transferOf(agent, call);
  if (to !== undefined) {
    const decided = await decideTransfer(deps, batch, agent, call, to);
    if ("error" in decided) return record(deps, input, call, decided.error, deadline);
    return transfer(deps, input, call, decided.append, deadline);
  }
  // An agent's own tool, else one of the MCP tools recorded when that agent took the run over.
  const mcpTools = batch.mcpTools ?? facts.mcpTools;
  const mcp = findTool(agent, call.name) ? undefined : recordedMcpTool(deps, agent, mcpTools, call.name);
  const tool = findTool(agent, call.name) ?? mcp?.tool;
  if (!tool) {
    const known = [
      ...agent.tools.map((t) => t.name),
      ...(mcpTools ?? []).map((t) => t.name),
      ...(agent.handoffs ?? []).map(transferToolName),
    ].join(", ");
    const content = `unknown tool ${call.name}; available: ${known}`;
    return record(deps, input, call, { content, isError: true }, deadline);
  }
  const parsed = parseArguments(tool, call);
  if ("error" in parsed) return record(deps, input, call, parsed.error, deadline);
  // A replay with recorded tools runs no tool: the recording answers (no tool_started, nothing ran).
  const replayed = await recordedAnswer(deps, events, call, tool, parsed.args);
  if (replayed) return record(deps, input, call, replayed, deadline);
  // A server that is down fails the step here, before `tool_started`: the step is retried (and,
  // once its retries are spent, a resume runs the call), so the call is never lost nor answered
  // as interrupted for it. Not needed for a call that will be answered as interrupted.
  if (mcp && (!batch.started.has(call.id) || tool.idempotent)) await mcp.ready();
  if (tool.subagent && !deps.control) {
    const content = `sub-agent tool ${tool.name}: this runtime cannot start runs, so it cannot start one of agent ${tool.subagent.agent}`;
    return record(deps, input, call, { content, isError: true }, deadline);
  }
  if (tool.subagent) {
    const result = await callSubagent(deps, input, events, call, tool, parsed.args as { input: string });
    return result ? output(result) : { callId: call.id, isError: false };
  }

  const claim = await writeNext<"run" | "rerun" | "interrupted" | ToolResult | Transferred>(
    deps,
    input.runId,
    input.generation,
    (_, f) => {
      const result = f.batch?.results.get(call.id);
      if (result) return { done: result };
      if (f.batch?.started.has(call.id)) return { done: tool.idempotent ? "rerun" : "interrupted" };
      return { append: { type: "tool_started", callId: call.id, name: call.name }, result: () => "run" };
    },
  );
  if (typeof claim === "object") return output(claim);
  if (claim === "interrupted") {
    const interrupted = { content: INTERRUPTED_TOOL_RESULT, isError: true };
    return record(deps, input, call, interrupted, deadline, { interrupted: true });
  }
  deps.faults.reached("tool:after-start");
  // The injected clock, as for the event's `at`: durations and timestamps of a log agree, and a
  // test controls both. A clock set back mid-call would give a negative span: it counts as 0.
  const startedAt = deps.clock.now().getTime();
  const outcome = await runWithTimeout(
    tool,
    parsed.args,
    { runId: input.runId, callId: call.id },
    deps.signal,
  );
  const ms = Math.max(0, deps.clock.now().getTime() - startedAt);
  deps.faults.reached("tool:after-run");
  const value: ToolRun = claim === "rerun" ? { ...outcome, rerun: true } : outcome;
  const result = await recordRun(deps, input, call, { value, ms }, deadline);
  deps.faults.reached("tool:after-append");
  return result;
}

/**
 * Store the outcome of a call this process ran. If the store keeps failing, the outcome is kept
 * for the step's retry in this process (it cannot be had again: the tool may not run twice); once
 * stored, or once the run has moved to another generation, it is dropped.
 */
async function recordRun(
  deps: StepDeps,
  input: RunToolInput,
  call: ToolCall,
  ran: Kept<ToolRun>,
  deadline: number,
): Promise<RunToolOutput> {
  const kept = deps.unstored.toolOutcomes;
  try {
    const result = await record(deps, input, call, ran.value, deadline, { ms: ran.ms });
    kept.forget(input.runId, input.generation, call.id);
    return result;
  } catch (error) {
    if (error instanceof StaleError) kept.forget(input.runId, input.generation, call.id);
    else kept.keep(input.runId, input.generation, call.id, ran);
    throw error;
  }
}

/**
 * Append the call's result unless one is already there (then that one stands), trying again
 * through store failures until the step's deadline.
 */
async function record(
  deps: StepDeps,
  input: RunToolInput,
  call: ToolCall,
  outcome: ToolRun,
  deadline: number,
  { interrupted = false, ms }: { interrupted?: boolean; ms?: number } = {},
): Promise<RunToolOutput> {
  const write = () =>
    writeNext(deps, input.runId, input.generation, (_, facts) => {
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
          ...(outcome.rerun ? { rerun: true } : {}),
          ...(ms === undefined ? {} : { ms }),
        },
        result: () => ({ callId: call.id, isError: outcome.isError }),
      };
    });
  return storeWithin(deps, deadline, write);
}

/** Append the `transferred` event that answers a transfer call, unless the call has its answer. */
async function transfer(
  deps: StepDeps,
  input: RunToolInput,
  call: ToolCall,
  event: NewEvent,
  deadline: number,
): Promise<RunToolOutput> {
  const write = () =>
    writeNext(deps, input.runId, input.generation, (_, facts) => {
      const result = facts.batch?.results.get(call.id);
      if (result) return { done: output(result) };
      return { append: event, result: () => ({ callId: call.id, isError: false }) };
    });
  deps.faults.reached("transfer:before-append");
  const result = await storeWithin(deps, deadline, write);
  deps.faults.reached("transfer:after-append");
  return result;
}

const output = (result: ToolResult | Transferred): RunToolOutput => ({
  callId: result.callId,
  isError: result.type === "tool_result" ? result.isError : false,
});
