import { assertCounted, type Exhaustion, exhausted, limitsInForce } from "../core/budget.ts";
import { classify, classifyFacts } from "../core/classify.ts";
import { continuedText } from "../core/continuation.ts";
import { StaleError } from "../core/errors.ts";
import type { NewEvent, RunEvent } from "../core/events.ts";
import type { LogFacts } from "../core/log.ts";
import { mcpToolSpecs } from "../core/mcpTools.ts";
import { checkOutput, type JsonValue } from "../core/structuredOutput.ts";
import { toolSpecs } from "../core/toolSpecs.ts";
import type { ModelReply, ModelRequest } from "../ports/model.ts";
import type { NextAction } from "../ports/runtime.ts";
import type { Agent } from "../ports/tool.ts";
import { assertCurrent } from "./appendNext.ts";
import { askSaving, resolveModel } from "./askModel.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { currentRun } from "./logReads.ts";
import { callsNeedingApproval, expiringApprovals, normalize } from "./modelReply.ts";
import { nextAction } from "./nextAction.ts";
import { recordedReplayOf } from "./recordedAnswer.ts";
import { STEPS_PER_EXECUTION, stepDeadline, withinBudget } from "./stepBudget.ts";
import { storeWithin } from "./storeRetry.ts";
import { transferTools } from "./transfer.ts";
import { writeNext } from "./writeNext.ts";

/**
 * The CallModel task. If the log already holds the answer to its input (a retry
 * or a duplicate delivery), it returns the next action from it without calling
 * the model; otherwise it calls the model and appends `model_response`. When
 * this execution has done its share of steps, the next action is a handoff.
 * Only what the model (or resolving it) throws is a model error; anything else
 * (the store, a tool whose schema cannot be sent, a stopped execution) is not,
 * so the workflow never records it as a model failure. A response is stored
 * through store failures within the step's time budget, and one that still
 * could not be stored is kept in this process for the step's retry.
 */
export async function callModel(deps: StepDeps, input: StepInput): Promise<NextAction> {
  const startedAt = deps.clock.now();
  const deadline = stepDeadline("CallModel", startedAt, deps.stepTimeoutSeconds);
  const events = await currentRun(deps, input.runId);
  const facts = deps.logs.factsOf(input.runId, events);
  assertCurrent(input.runId, facts, input.generation);
  const before = classifyFacts(facts);
  const used = facts.generationSteps;
  const limit = deps.stepsPerExecution ?? STEPS_PER_EXECUTION;
  const next = withinBudget(nextAction(before, beginsExecution(facts)), used, limit);
  if (next.action !== "model") return next;

  const agent = deps.agents(facts.agent!);
  // The budget, from the whole log: a turn is taken only while every limit is above what was used.
  const limits = limitsInForce(facts.limits, agent.limits);
  const over = exhausted(limits, facts.used, deps.prices);
  if (over) return stopForBudget(deps, input, facts, over);
  // Built before the model's error boundary: what fails here is not the model's failure.
  const request = modelRequest(deps, input, facts, events, agent);
  const model = resolveModel(deps, facts.model!);
  const replies = deps.unstored.modelReplies;
  const turn = String(facts.modelTurns);
  // A reply this process got for this very input and could not store is the answer: not a second call.
  const got =
    replies.get(input.runId, input.generation, turn) ??
    (await askSaving(deps, input, facts, model, request, startedAt));
  // A response that reported no usage would leave a token or cost budget uncounted: unlimited.
  assertCounted(limits, model.spec, got.value);
  // Text saved of this response before a crash, then the rest: one response (continue_partial).
  const saved = facts.partial?.text ?? "";
  const reply = normalize({ ...got.value, text: saved + got.value.text });
  // Responses cut at the output limit that this one continues (continue_response): each event keeps
  // its own call's text, the answer checked (and given as the outcome) is theirs and this one's.
  const continued = continuedText(events, events.length);
  // A replay with recorded tools asks nobody: the recording holds what each decision came to.
  const approvals = recordedReplayOf(events) === undefined ? callsNeedingApproval(agent, reply) : [];
  const approvalTimeouts = expiringApprovals(agent, reply, approvals);
  deps.faults.reached("model:after-call");

  const append = () =>
    writeNext(deps, input.runId, input.generation, (latest, latestFacts) => {
      // Someone of this generation answered the same input while we waited, or found the budget
      // spent: keep theirs.
      if (latestFacts.modelTurns > facts.modelTurns || latestFacts.exhausted)
        return { done: classifyFacts(latestFacts) };
      const turn = { model: model.spec, ms: got.ms, ...(reply.usage ? { usage: reply.usage } : {}) };
      const checked = checkFinal(agent, { ...reply, text: continued + reply.text }, latestFacts);
      const response: NewEvent =
        checked?.ok === false
          ? { type: "output_rejected", text: reply.text, ...checked.rejected, ...turn }
          : {
              type: "model_response",
              text: reply.text,
              toolCalls: reply.toolCalls,
              stop: reply.stop,
              ...turn,
              ...(approvals.length > 0 ? { approvals } : {}),
              ...(approvalTimeouts === undefined ? {} : { approvalTimeouts }),
              ...(checked?.ok === true ? { output: checked.value } : {}),
            };
      return {
        append: response,
        // The response is an anchor: it alone says what comes next (no copy or re-read of a long log).
        result: (event) =>
          latestFacts.problem
            ? classify([...latest, event])
            : classify([event], { seq: event.seq, generation: latestFacts.generation }),
      };
    });
  let after: Awaited<ReturnType<typeof append>>;
  try {
    after = await storeWithin(deps, deadline, append);
  } catch (error) {
    if (error instanceof StaleError) replies.forget(input.runId, input.generation, turn);
    else replies.keep(input.runId, input.generation, turn, got);
    throw error;
  }
  replies.forget(input.runId, input.generation, turn);
  deps.faults.reached("model:after-append");
  return withinBudget(nextAction(after, false), used + 1, limit);
}

/**
 * A final answer (`reply.text`: the whole answer, after the text of the responses cut at the output
 * limit that it continues) checked against the agent's output schema, when it has one: the value to record
 * on the response, or the rejection to record instead of it (which try this is, and whether the
 * model is asked again). Decided before the write, so the one event written says it: no crash
 * can leave a final answer unchecked, and no RunCompleted is told of one that did not fit.
 */
function checkFinal(
  agent: Agent,
  reply: ModelReply,
  facts: LogFacts,
):
  | { ok: true; value: JsonValue }
  | { ok: false; rejected: { problems: string; attempt: number; retry: boolean } }
  | undefined {
  if (!agent.output || reply.stop !== "stop" || reply.toolCalls.length > 0) return undefined;
  const check = checkOutput(reply.text, agent.output.schema);
  if (check.ok) return check;
  const attempt = facts.rejectedOutputs + 1;
  return {
    ok: false,
    rejected: { problems: check.problems, attempt, retry: attempt <= agent.output.retries },
  };
}

/**
 * End the run's turns at a reached limit: append `budget_exhausted` with the figures, under the seq
 * lock, unless the log moved on meanwhile (a duplicate of this step answered, or stopped, first).
 */
async function stopForBudget(
  deps: StepDeps,
  input: StepInput,
  facts: LogFacts,
  over: Exhaustion,
): Promise<NextAction> {
  const after = await writeNext(deps, input.runId, input.generation, (_latest, latestFacts) => {
    if (latestFacts.modelTurns > facts.modelTurns || latestFacts.exhausted) {
      return { done: classifyFacts(latestFacts) };
    }
    return {
      append: { type: "budget_exhausted", limit: over.limit, used: over.used, limits: over.limits },
      // The event itself is what the run now rests on: the classification names it.
      result: (event) =>
        event.type === "budget_exhausted"
          ? classifyFacts({ ...latestFacts, exhausted: event })
          : classifyFacts(latestFacts),
    };
  });
  return nextAction(after, false);
}

/**
 * Whether this generation has yet to do a step: its next CallModel is the first of its execution.
 * Only then is a cut-off or truncated response at the end of the log one to ask the model about
 * again (a resume did that on purpose). Once this generation wrote a step, such a response is its
 * own work, which ended the execution (nextAction): a retried or duplicated CallModel that finds
 * it gives the answer the attempt that wrote it gave, and RecordModelFailure records nothing on it.
 */
export function beginsExecution(facts: LogFacts): boolean {
  return facts.generationSteps === 0;
}

/** The request for the model's next turn. InvalidInputError naming the tool whose schema cannot be sent. */
function modelRequest(
  deps: StepDeps,
  input: StepInput,
  facts: LogFacts,
  events: readonly RunEvent[],
  agent: Agent,
): ModelRequest {
  const streamed = deps.observer?.streamed?.bind(deps.observer);
  return {
    runId: input.runId,
    turn: facts.modelTurns,
    instructions: agent.instructions,
    messages: deps.logs.messagesOf(input.runId, events),
    // The agent's own tools, the MCP tools as the run recorded them when it started, then a
    // transfer_to_<name> for each agent it may hand the conversation to.
    tools: [...toolSpecs(agent), ...mcpToolSpecs(facts.mcpTools), ...transferTools(deps, agent)],
    ...(agent.output ? { output: { name: agent.name, schema: agent.output.jsonSchema } } : {}),
    // As the log records them (run_started, changed on resume): every turn calls the model the same way.
    ...(facts.modelSettings === undefined ? {} : { settings: facts.modelSettings }),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(streamed ? { onText: (delta: string) => streamed(input.runId, input.generation, delta) } : {}),
  };
}
