import type { ModelResponse, RunEvent, ToolCall, ToolResult } from "./events.ts";

/** The tool calls of the latest response that asked for tools, and what became of each. */
export interface ToolBatch {
  response: ModelResponse;
  /** Call ids with a `tool_started` event. */
  started: ReadonlySet<string>;
  /** Results by call id. */
  results: ReadonlyMap<string, ToolResult>;
}

/** What a log says, derived in one pass. Pure: the same events give the same facts. */
export interface LogFacts {
  /** The first structural problem found, naming its seq; the rest of the facts are then partial. */
  problem?: { seq: number; message: string };
  /** The last event that moves the conversation (not a `resumed` marker). */
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
}

/** The calls of a batch that have no result yet. */
export function unanswered(batch: ToolBatch): ToolCall[] {
  return batch.response.toolCalls.filter((call) => !batch.results.has(call.id));
}

/** Read a log (or a contiguous slice of one starting at seq 1) into the facts resume decisions need. */
export function readLog(events: readonly RunEvent[]): LogFacts {
  const facts: LogFacts = { generation: 1, modelTurns: 0 };
  let started = new Set<string>();
  let results = new Map<string, ToolResult>();
  const fail = (seq: number, message: string): LogFacts => ({ ...facts, problem: { seq, message } });

  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const expected = i + 1;
    if (event.seq !== expected) {
      return fail(
        expected,
        `expected seq ${expected} but found ${event.seq} (a gap or a duplicate in the log)`,
      );
    }
    if (i === 0 && event.type !== "run_started") {
      return fail(event.seq, `a log must start with run_started, found ${event.type}`);
    }
    const open = facts.batch && results.size < facts.batch.response.toolCalls.length;
    switch (event.type) {
      case "run_started":
        if (i !== 0) return fail(event.seq, "run_started appears after the start of the log");
        facts.agent = event.agent;
        facts.model = event.model;
        facts.last = event;
        break;
      case "user_message":
        if (open) return fail(event.seq, "a user message arrived while tool calls were unanswered");
        facts.last = event;
        break;
      case "model_response":
        if (open) return fail(event.seq, "a model response arrived while tool calls were unanswered");
        facts.modelTurns++;
        facts.last = event;
        if (event.stop === "tool_calls") {
          const ids = new Set(event.toolCalls.map((call) => call.id));
          if (event.toolCalls.length === 0)
            return fail(event.seq, "stop is tool_calls but there are no tool calls");
          if (ids.size !== event.toolCalls.length) return fail(event.seq, "two tool calls share an id");
          started = new Set();
          results = new Map();
          facts.batch = { response: event, started, results };
        }
        break;
      case "model_failed":
        if (open) return fail(event.seq, "a model failure was recorded while tool calls were unanswered");
        facts.modelTurns++;
        facts.last = event;
        break;
      case "tool_started": {
        const call = facts.batch?.response.toolCalls.find((c) => c.id === event.callId);
        if (call && results.has(event.callId)) {
          return fail(event.seq, `tool_started for call ${event.callId} after its result`);
        }
        if (!call || !open) {
          return fail(event.seq, `tool_started for call ${event.callId}, which no open response asked for`);
        }
        started.add(event.callId);
        facts.last = event;
        break;
      }
      case "tool_result": {
        const call = facts.batch?.response.toolCalls.find((c) => c.id === event.callId);
        if (!call || !open)
          return fail(event.seq, `tool_result for call ${event.callId}, which answers no open call`);
        if (results.has(event.callId))
          return fail(event.seq, `a second tool_result for call ${event.callId}`);
        results.set(event.callId, event);
        facts.last = event;
        break;
      }
      case "resumed":
        if (event.generation <= facts.generation) {
          return fail(event.seq, `resumed to generation ${event.generation}, not above ${facts.generation}`);
        }
        facts.generation = event.generation;
        if (event.model) facts.model = event.model;
        break;
      default:
        return assertNever(event);
    }
  }
  return facts;
}

export function assertNever(value: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(value)}`);
}
