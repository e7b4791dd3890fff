import type { BudgetUsed, Limits } from "./budget.ts";
import type { ToolCall } from "./eventFields.ts";
import type {
  BudgetExhausted,
  CancelledEvent,
  ExecutionStopped,
  ModelResponse,
  RunEvent,
  ToolDecided,
  ToolResult,
  Transferred,
} from "./events.ts";
import type { McpTool } from "./mcpTools.ts";
import type { ModelSettings } from "./modelSettings.ts";

/*
 * What a run's log says (LogFacts, with the open or latest tool batch) and how a log is read (a
 * LogView, whole or a tail from a LogStart): the one vocabulary the core and the steps decide on.
 * lib/core/logReader.ts reads a log into these facts.
 */

/** The tool calls of the latest response that asked for tools, and what became of each. */
export interface ToolBatch {
  response: ModelResponse;
  /** Call ids with a `tool_started` event. */
  started: ReadonlySet<string>;
  /** Results by call id: a tool's, or the `transferred` event that answers a transfer call. */
  results: ReadonlyMap<string, ToolResult | Transferred>;
  /** Call ids that need a person's approval before they run. */
  needsApproval: ReadonlySet<string>;
  /** Approval decisions by call id. */
  decisions: ReadonlyMap<string, ToolDecided>;
  /** Sub-agent calls that started a child run: the child's run id by call id (`tool_started.child`). */
  children: ReadonlyMap<string, string>;
  /** False once a later message closed the batch (its open calls count as interrupted). */
  open: boolean;
  /**
   * The agent that made the response: its tools answer the batch's calls, even after one of them
   * transferred the run to another agent. Unknown on a tail that does not show it.
   */
  agent?: string;
  /** That agent's MCP tools (none: empty), known when `agent` is: a transfer in the batch changes the run's, not these. */
  mcpTools?: readonly McpTool[];
}

/** What a log says, derived in one pass. Pure: the same events give the same facts. */
export interface LogFacts {
  /** The first structural problem found, naming its seq; the rest of the facts are then partial. */
  problem?: { seq: number; message: string };
  /** The last event that moves the conversation (not a marker without input). */
  last?: RunEvent;
  /** The open or latest tool batch. */
  batch?: ToolBatch;
  /** The generation that owns the run: 1, or the latest `resumed` event's. */
  generation: number;
  /** Model turns recorded so far: responses (rejected answers too) and recorded failures. */
  modelTurns: number;
  /**
   * Final answers the agent's output schema rejected since the latest user input (`output_rejected`
   * events): how many tries of the answer are spent. Of a tail, those it shows.
   */
  rejectedOutputs: number;
  /**
   * Steps the generation in force has done: responses and tool results since its `resumed` marker
   * (or the run's start). What bounds an execution's share of steps (lib/steps/stepBudget.ts).
   */
  generationSteps: number;
  /**
   * The model spec in force: the run's, the latest given on resume, or the one that answered (or
   * failed) the latest turn, whichever came last: each of those events records it.
   */
  model?: string;
  /**
   * The agent in force: the latest `transferred` event's `to`, else `run_started`'s. A tail knows
   * it only when it shows one of those.
   */
  agent?: string;
  /**
   * The MCP tools of the agent in force, as recorded when it took over (lib/core/mcpTools.ts): the
   * latest `transferred` event's, else `run_started`'s. A tail that shows neither has none.
   */
  mcpTools?: readonly McpTool[];
  /** The latest transfer, if the run was transferred (of a tail: if the tail shows it). */
  transferred?: Transferred;
  /** Set once the run was cancelled: nothing may be written after it. */
  cancelled?: CancelledEvent;
  /**
   * Set while the latest execution was stopped outside runlog: until a `resumed` event (a
   * person's resume), nothing resumes the run automatically.
   */
  stopped?: ExecutionStopped;
  /**
   * The budget recorded in the log: `run_started`'s limits, with those a later `resumed` raised
   * put over them. Absent when the run recorded none (started before budgets): its agent's apply.
   */
  limits?: Limits;
  /** The model settings recorded: `run_started`'s, with those a later `resumed` changed put over them. */
  modelSettings?: ModelSettings;
  /** What the run used, counted from its responses (of the events read: a tail counts only itself). */
  used: BudgetUsed;
  /** The run reached a limit of its budget and no `resumed` has come since. */
  exhausted?: BudgetExhausted;
  /**
   * The text of a response still streaming when the log was read: the `response_progress` events
   * since the last anchor, joined (`seq`: the latest). A response or any new input supersedes it.
   */
  partial?: { text: string; seq: number };
}

/** The calls of a batch that have no result yet. */
export function unanswered(batch: ToolBatch): ToolCall[] {
  return batch.response.toolCalls.filter((call) => !batch.results.has(call.id));
}

/** Whether a call may run: it needs no approval, or a person approved it. */
export function isCleared(batch: ToolBatch, callId: string): boolean {
  return !batch.needsApproval.has(callId) || batch.decisions.get(callId)?.approved === true;
}

/**
 * Where a tail of a log begins: its first seq (an anchor, see `lib/core/tail.ts`) and the
 * generation in force just before it. Without one, a log is read from seq 1.
 */
export interface LogStart {
  seq: number;
  generation: number;
}

/**
 * A run's log as it was read: all of it, from seq 1, or a tail of it from `start` (see
 * lib/core/tail.ts). What the core reads and what steps decide on: one vocabulary.
 */
export interface LogView {
  readonly events: readonly RunEvent[];
  readonly start?: LogStart;
}
