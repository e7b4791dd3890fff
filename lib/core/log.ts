import type { CancelledEvent, ModelResponse, RunEvent, ToolCall, ToolDecided, ToolResult } from "./events.ts";

/** The tool calls of the latest response that asked for tools, and what became of each. */
export interface ToolBatch {
  response: ModelResponse;
  /** Call ids with a `tool_started` event. */
  started: ReadonlySet<string>;
  /** Results by call id. */
  results: ReadonlyMap<string, ToolResult>;
  /** Call ids that need a person's approval before they run. */
  needsApproval: ReadonlySet<string>;
  /** Approval decisions by call id. */
  decisions: ReadonlyMap<string, ToolDecided>;
  /** False once a later message closed the batch (its open calls count as interrupted). */
  open: boolean;
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
  /** Model turns recorded so far: responses and recorded failures. */
  modelTurns: number;
  /** The model spec in force: the run's, or the latest override given on resume. */
  model?: string;
  agent?: string;
  /** Set once the run was cancelled: nothing may be written after it. */
  cancelled?: CancelledEvent;
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
 * Read a log (events from seq 1, in order; or a tail from `start`, in order) into the facts
 * resume decisions need. A tail gives the same answer about where the run stands as the whole
 * log; `modelTurns`, `agent` and `model` then count only what the tail shows.
 */
export function readLog(events: readonly RunEvent[], start?: LogStart): LogFacts {
  const facts: LogFacts = { generation: start?.generation ?? 1, modelTurns: 0 };
  const firstSeq = start?.seq ?? 1;
  let started = new Set<string>();
  let results = new Map<string, ToolResult>();
  let decisions = new Map<string, ToolDecided>();
  const fail = (seq: number, message: string): LogFacts => ({ ...facts, problem: { seq, message } });
  const isOpen = () => facts.batch?.open === true && results.size < facts.batch.response.toolCalls.length;
  const close = () => {
    if (facts.batch) facts.batch = { ...facts.batch, open: false };
  };
  const callOf = (callId: string) =>
    isOpen() ? facts.batch?.response.toolCalls.find((c) => c.id === callId) : undefined;

  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const expected = firstSeq + i;
    if (event.seq !== expected) {
      return fail(
        expected,
        `expected seq ${expected} but found ${event.seq} (a gap or a duplicate in the log)`,
      );
    }
    if (i === 0 && firstSeq === 1 && event.type !== "run_started") {
      return fail(event.seq, `a log must start with run_started, found ${event.type}`);
    }
    if (facts.cancelled) return fail(event.seq, `${event.type} written after the run was cancelled`);
    switch (event.type) {
      case "run_started":
        if (event.seq !== 1) return fail(event.seq, "run_started appears after the start of the log");
        facts.agent = event.agent;
        facts.model = event.model;
        facts.last = event;
        break;
      case "user_message":
        if (isOpen()) return fail(event.seq, "a user message arrived while tool calls were unanswered");
        facts.last = event;
        break;
      case "model_response": {
        if (isOpen()) return fail(event.seq, "a model response arrived while tool calls were unanswered");
        facts.modelTurns++;
        facts.last = event;
        if (event.stop !== "tool_calls") break;
        const ids = new Set(event.toolCalls.map((call) => call.id));
        if (event.toolCalls.length === 0)
          return fail(event.seq, "stop is tool_calls but there are no tool calls");
        if (ids.size !== event.toolCalls.length) return fail(event.seq, "two tool calls share an id");
        const needsApproval = new Set(event.approvals ?? []);
        for (const id of needsApproval) {
          if (!ids.has(id))
            return fail(event.seq, `approval asked for call ${id}, which this response did not make`);
        }
        started = new Set();
        results = new Map();
        decisions = new Map();
        facts.batch = { response: event, started, results, needsApproval, decisions, open: true };
        break;
      }
      case "model_failed":
        if (isOpen()) return fail(event.seq, "a model failure was recorded while tool calls were unanswered");
        facts.modelTurns++;
        facts.last = event;
        break;
      case "tool_decided": {
        const call = callOf(event.callId);
        if (!call || !facts.batch!.needsApproval.has(call.id)) {
          return fail(event.seq, `a decision for call ${event.callId}, which awaits no approval`);
        }
        if (decisions.has(call.id)) return fail(event.seq, `a second decision for call ${call.id}`);
        decisions.set(call.id, event);
        facts.last = event;
        break;
      }
      case "tool_started": {
        const call = callOf(event.callId);
        if (!call) return fail(event.seq, `tool_started for call ${event.callId}, which is not an open call`);
        if (results.has(call.id)) return fail(event.seq, `tool_started for call ${call.id} after its result`);
        if (!isCleared(facts.batch!, call.id)) {
          return fail(event.seq, `tool_started for call ${call.id}, which was not approved`);
        }
        started.add(call.id);
        facts.last = event;
        break;
      }
      case "tool_result": {
        const call = callOf(event.callId);
        if (!call) return fail(event.seq, `tool_result for call ${event.callId}, which answers no open call`);
        if (results.has(call.id)) return fail(event.seq, `a second tool_result for call ${call.id}`);
        results.set(call.id, event);
        facts.last = event;
        break;
      }
      case "resumed":
        if (event.generation <= facts.generation) {
          return fail(event.seq, `resumed to generation ${event.generation}, not above ${facts.generation}`);
        }
        facts.generation = event.generation;
        if (event.model) facts.model = event.model;
        if (event.input !== undefined) {
          close();
          facts.last = event;
        }
        break;
      case "cancelled":
        facts.cancelled = event;
        break;
      default:
        return assertNever(event);
    }
    if (event.gen !== undefined && event.gen !== facts.generation) {
      return fail(event.seq, `written as generation ${event.gen}, but the log is at ${facts.generation}`);
    }
  }
  return facts;
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
