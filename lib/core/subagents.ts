/**
 * Sub-agents (agentAsTool): a tool call that starts a child run and takes its ending as the call's
 * result. Pure: the child's id, what its log says about its ending, what its parent is told.
 */
import { canonicalValue } from "./canonicalJson.ts";
import { classifyFacts } from "./classify.ts";
import type { CallParent, ForkParent, ToolCall } from "./eventFields.ts";
import type { RunStarted } from "./events.ts";
import type { LogView, ToolBatch } from "./log.ts";
import { factsOf } from "./logReader.ts";
import { finalOutput } from "./messages.ts";

/**
 * How deep sub-agent runs nest unless a sub-agent tool says otherwise (agentAsTool's `maxDepth`):
 * a run started on its own is at depth 0, the child of one of its sub-agent calls at 1, and so on.
 * A call that would start a child deeper is answered with an error instead, so an agent that
 * calls itself (or a → b → a) stops on its own: each child has a budget of its own.
 */
export const DEFAULT_MAX_SUBAGENT_DEPTH = 8;

/**
 * The deepest any sub-agent tool may let runs nest, and so how deep a look-up of a waiting run's
 * children goes (lib/steps/subagents/lookUp.ts): every tree this bound lets grow is looked up whole.
 */
export const MAX_SUBAGENT_DEPTH = 32;

/** The longest run id (lib/core/ids.ts). */
const MAX_RUN_ID = 128;
const ID_CHARS = /^[A-Za-z0-9._-]+$/;

/**
 * The id of the child run a sub-agent call starts: `PARENT.CALL` when that is a valid run id, else
 * the parent's id cut to fit and a hash of both. Deterministic, so a retried or resumed call (in any
 * process, after any crash) names the same child, and starting it again finds it.
 */
export function childRunId(parentRunId: string, callId: string): string {
  const plain = `${parentRunId}.${callId}`;
  if (plain.length <= MAX_RUN_ID && ID_CHARS.test(callId)) return plain;
  const hash = fnv1a64(`${parentRunId}\n${callId}`);
  return `${parentRunId.slice(0, MAX_RUN_ID - hash.length - 3)}.c-${hash}`;
}

/** Whether a `run_started`'s parent is the tool call of a sub-agent (not a fork's copy point). */
export const isCallParent = (parent: ForkParent | CallParent | undefined): parent is CallParent =>
  parent !== undefined && "callId" in parent;

/** A fork's copy point, or nothing (a child run's parent is a call, not a copy). */
export const forkParentOf = (parent: ForkParent | CallParent | undefined): ForkParent | undefined =>
  parent !== undefined && "seq" in parent ? parent : undefined;

/** The parent call of a run's `run_started`, when the run is a sub-agent's child. */
export const callParentOf = (first: RunStarted): CallParent | undefined =>
  isCallParent(first.parent) ? first.parent : undefined;

/**
 * The sub-agent calls of a batch still open whose child run has not answered: each call and its
 * child's run id, in call order. A message must not close them: their children would go on, and
 * their answers would come to nothing.
 */
export function waitingChildren(batch: ToolBatch | undefined): { call: ToolCall; childRunId: string }[] {
  if (batch === undefined || !batch.open) return [];
  return batch.response.toolCalls.flatMap((call) => {
    const childRunId = batch.children.get(call.id);
    return childRunId === undefined || batch.results.has(call.id) ? [] : [{ call, childRunId }];
  });
}

/** What a parent's call is answered with once its child ended. */
export interface ChildAnswer {
  content: string;
  isError: boolean;
}

/**
 * The answer a child's log gives its parent's call, or undefined while the child has not ended: it
 * may go on (resumable), or it waits for a person (a decision, a raised budget) or for children of
 * its own. A final answer is the call's result (its text, or its structured output as canonical
 * JSON, keys sorted); any other ending (refused, cancelled, invalid output …) is an error result
 * that says so.
 */
export function childAnswer(childRunId: string, view: LogView): ChildAnswer | undefined {
  const { events } = view;
  if (events.length === 0) return undefined;
  const point = classifyFacts(factsOf(view));
  if (point.resumable) return undefined;
  switch (point.reason) {
    case "awaiting_approval":
    case "awaiting_children":
    case "budget_exhausted":
      return undefined;
    case "completed": {
      // Keys sorted, as the store writes them: the parent reads the same text whether the child's
      // output came from this process or from the store (after a crash, in another process).
      const output = finalOutput(events);
      return { content: typeof output === "string" ? output : canonicalValue(output), isError: false };
    }
    default:
      return {
        content: `sub-agent run ${childRunId} ended ${point.reason}: ${point.description}`,
        isError: true,
      };
  }
}

/** 64-bit FNV-1a of a string's UTF-16 code units, as 16 hex digits: pure, and stable across processes. */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}
