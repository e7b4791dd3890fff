import { assertNever } from "./assertNever.ts";
import { countUsage } from "./countUsage.ts";
import type { ToolCall } from "./eventFields.ts";
import type { RunEvent, ToolDecided, ToolResult, Transferred } from "./events.ts";
import { isCleared, type LogFacts, type LogStart, type LogView } from "./log.ts";

/*
 * Reading a log into its facts (lib/core/log.ts): one fold over the events, in order, that checks
 * the log's structure as it goes and stops at the first problem; whole, or one event at a time for
 * a log that grows.
 */

/** The facts of a view, read from where it starts. */
export const factsOf = (view: LogView): LogFacts => readLog(view.events, view.start);

/**
 * Read a log (events from seq 1, in order; or a tail from `start`, in order) into the facts
 * resume decisions need. A tail gives the same answer about where the run stands as the whole
 * log; `modelTurns`, `generationSteps`, `agent` and `model` then count only what the tail shows.
 */
export function readLog(events: readonly RunEvent[], start?: LogStart): LogFacts {
  const reader = new LogReader(start);
  for (const event of events) reader.read(event);
  return reader.facts();
}

/**
 * readLog one event at a time, for a log that grows: a process that holds a run's log reads
 * each new event once, not the whole log again at every step (see LogCache).
 */
export class LogReader {
  private readonly state: LogFacts;
  private started = new Set<string>();
  private results = new Map<string, ToolResult | Transferred>();
  private decisions = new Map<string, ToolDecided>();
  private children = new Map<string, string>();
  private byModel = new Map<string, { inputTokens: number; outputTokens: number }>();
  private readonly firstSeq: number;
  /** How many events were read (a problem stops the reading). */
  count = 0;

  constructor(start?: LogStart) {
    this.state = {
      generation: start?.generation ?? 1,
      modelTurns: 0,
      rejectedOutputs: 0,
      generationSteps: 0,
      used: { turns: 0, inputTokens: 0, outputTokens: 0, byModel: this.byModel },
    };
    this.firstSeq = start?.seq ?? 1;
  }

  /** What the events read so far say: a copy, which later reads leave unchanged. */
  facts(): LogFacts {
    const { batch } = this.state;
    const byModel = new Map([...this.byModel].map(([spec, tokens]) => [spec, { ...tokens }]));
    const used = { ...this.state.used, byModel };
    if (!batch) return { ...this.state, used };
    return {
      ...this.state,
      used,
      batch: {
        ...batch,
        started: new Set(batch.started),
        results: new Map(batch.results),
        decisions: new Map(batch.decisions),
        children: new Map(batch.children),
      },
    };
  }

  /** Read the next event. After the first problem, nothing more is read: the facts stay partial. */
  read(event: RunEvent): void {
    if (this.state.problem) return;
    const problem = this.apply(event);
    this.count++;
    if (problem) this.state.problem = problem;
  }

  private isOpen(): boolean {
    const batch = this.state.batch;
    return batch?.open === true && this.results.size < batch.response.toolCalls.length;
  }

  private callOf(callId: string): ToolCall | undefined {
    return this.isOpen() ? this.state.batch?.response.toolCalls.find((c) => c.id === callId) : undefined;
  }

  /** Fold one event into the state; the problem it shows, if any. */
  private apply(event: RunEvent): { seq: number; message: string } | undefined {
    const facts = this.state;
    const expected = this.firstSeq + this.count;
    if (event.seq !== expected) {
      return fail(
        expected,
        `expected seq ${expected} but found ${event.seq} (a gap or a duplicate in the log)`,
      );
    }
    if (this.count === 0 && this.firstSeq === 1 && event.type !== "run_started") {
      return fail(event.seq, `a log must start with run_started, found ${event.type}`);
    }
    if (facts.cancelled) return fail(event.seq, `${event.type} written after the run was cancelled`);
    switch (event.type) {
      case "run_started":
        if (event.seq !== 1) return fail(event.seq, "run_started appears after the start of the log");
        facts.agent = event.agent;
        facts.model = event.model;
        if (event.limits) facts.limits = { ...event.limits };
        if (event.modelSettings) facts.modelSettings = { ...event.modelSettings };
        if (event.mcpTools) facts.mcpTools = event.mcpTools;
        facts.last = event;
        break;
      case "user_message":
        if (this.isOpen()) return fail(event.seq, "a user message arrived while tool calls were unanswered");
        facts.rejectedOutputs = 0;
        delete facts.partial;
        facts.last = event;
        break;
      case "model_response": {
        if (this.isOpen())
          return fail(event.seq, "a model response arrived while tool calls were unanswered");
        if (event.model) facts.model = event.model;
        facts.modelTurns++;
        facts.generationSteps++;
        // The response holds the whole text: the progress saved while it streamed is superseded.
        delete facts.partial;
        facts.last = event;
        countUsage(facts.used, this.byModel, event, facts.model);
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
        this.started = new Set();
        this.results = new Map();
        this.decisions = new Map();
        this.children = new Map();
        facts.batch = {
          response: event,
          started: this.started,
          results: this.results,
          needsApproval,
          decisions: this.decisions,
          children: this.children,
          open: true,
          ...(facts.agent === undefined ? {} : { agent: facts.agent, mcpTools: facts.mcpTools ?? [] }),
        };
        break;
      }
      case "output_rejected":
        if (this.isOpen())
          return fail(event.seq, "a rejected answer arrived while tool calls were unanswered");
        if (event.model) facts.model = event.model;
        facts.modelTurns++;
        facts.generationSteps++;
        facts.rejectedOutputs = event.attempt;
        delete facts.partial;
        facts.last = event;
        countUsage(facts.used, this.byModel, event, facts.model);
        break;
      case "model_failed":
        if (this.isOpen())
          return fail(event.seq, "a model failure was recorded while tool calls were unanswered");
        // A turn says which model answered (or failed): a tail that starts at it knows the model.
        if (event.model) facts.model = event.model;
        facts.modelTurns++;
        delete facts.partial;
        facts.last = event;
        break;
      case "tool_decided": {
        const call = this.callOf(event.callId);
        if (!call || !facts.batch!.needsApproval.has(call.id)) {
          return fail(event.seq, `a decision for call ${event.callId}, which awaits no approval`);
        }
        if (this.decisions.has(call.id)) return fail(event.seq, `a second decision for call ${call.id}`);
        this.decisions.set(call.id, event);
        facts.last = event;
        break;
      }
      case "tool_started": {
        const call = this.callOf(event.callId);
        if (!call) return fail(event.seq, `tool_started for call ${event.callId}, which is not an open call`);
        if (this.results.has(call.id))
          return fail(event.seq, `tool_started for call ${call.id} after its result`);
        if (!isCleared(facts.batch!, call.id)) {
          return fail(event.seq, `tool_started for call ${call.id}, which was not approved`);
        }
        this.started.add(call.id);
        if (event.child !== undefined) this.children.set(call.id, event.child);
        facts.last = event;
        break;
      }
      case "tool_result": {
        const call = this.callOf(event.callId);
        if (!call) return fail(event.seq, `tool_result for call ${event.callId}, which answers no open call`);
        if (this.results.has(call.id)) return fail(event.seq, `a second tool_result for call ${call.id}`);
        this.results.set(call.id, event);
        facts.generationSteps++;
        facts.last = event;
        break;
      }
      case "transferred": {
        // The answer to a transfer call: a result of the batch, and the agent from here on.
        const call = this.callOf(event.callId);
        if (!call) return fail(event.seq, `transferred for call ${event.callId}, which answers no open call`);
        if (this.results.has(call.id)) return fail(event.seq, `a second answer to call ${call.id}`);
        if (this.started.has(call.id))
          return fail(event.seq, `transferred for call ${call.id}, which had started as a tool`);
        if (facts.transferred && this.results.has(facts.transferred.callId))
          return fail(
            event.seq,
            `a second transfer in one response (call ${facts.transferred.callId} transferred)`,
          );
        this.results.set(call.id, event);
        facts.agent = event.to;
        if (event.model) facts.model = event.model;
        if (event.mcpTools) facts.mcpTools = event.mcpTools;
        else delete facts.mcpTools;
        facts.transferred = event;
        facts.generationSteps++;
        facts.last = event;
        break;
      }
      case "resumed":
        if (event.generation <= facts.generation) {
          return fail(event.seq, `resumed to generation ${event.generation}, not above ${facts.generation}`);
        }
        facts.generation = event.generation;
        facts.generationSteps = 0;
        delete facts.stopped;
        if (event.model) facts.model = event.model;
        // A new generation is a person's (or a sweep's) go-ahead: a reached limit is checked afresh.
        delete facts.exhausted;
        if (event.limits) facts.limits = { ...facts.limits, ...event.limits };
        if (event.modelSettings) facts.modelSettings = { ...facts.modelSettings, ...event.modelSettings };
        if (event.input !== undefined) {
          // A new message closes the batch: its open calls count as interrupted.
          if (facts.batch) facts.batch = { ...facts.batch, open: false };
          facts.rejectedOutputs = 0;
          delete facts.partial;
          facts.last = event;
        }
        break;
      case "cancelled":
        facts.cancelled = event;
        break;
      case "execution_stopped":
        if (event.generation !== facts.generation) {
          return fail(
            event.seq,
            `a stop of generation ${event.generation}, but the log is at ${facts.generation}`,
          );
        }
        facts.stopped = event;
        break;
      case "budget_exhausted":
        facts.exhausted = event;
        break;
      case "response_progress":
        if (this.isOpen()) return fail(event.seq, "response text arrived while tool calls were unanswered");
        facts.partial = { text: (facts.partial?.text ?? "") + event.text, seq: event.seq };
        break;
      case "paused":
      case "given_up":
        // Markers of where the run came to rest (lifecycle facts): they move nothing.
        break;
      default:
        return assertNever(event);
    }
    if (event.gen !== undefined && event.gen !== facts.generation) {
      return fail(event.seq, `written as generation ${event.gen}, but the log is at ${facts.generation}`);
    }
    return undefined;
  }
}

/** A problem of the log at `seq`. */
const fail = (seq: number, message: string) => ({ seq, message });
