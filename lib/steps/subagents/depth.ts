import type { RunStarted } from "../../core/events.ts";
import { type ChildAnswer, callParentOf } from "../../core/subagents.ts";
import type { EventStore } from "../../ports/eventStore.ts";
import { firstEvent } from "../publishLifecycle.ts";

/**
 * How many sub-agent calls deep a run is: 0 for a run started on its own (a fork too), its parent's
 * depth + 1 for a sub-agent's child. Read up the chain of parents each `run_started` records, so
 * every process (a retried step, a resume elsewhere) finds the same; no further than `atMost` + 1
 * levels, which is all a bound of `atMost` needs to know. A parent no longer stored (its retention
 * ran out) ends the chain there.
 */
export async function subagentDepth(store: EventStore, first: RunStarted, atMost: number): Promise<number> {
  const seen = new Set([first.runId]);
  let depth = 0;
  for (let parent = callParentOf(first); parent !== undefined && depth <= atMost; depth++) {
    // A log naming its own descendant as its parent is malformed: count no further.
    if (seen.has(parent.runId)) return depth + 1;
    seen.add(parent.runId);
    const above = await firstEvent(store, parent.runId);
    parent = above === undefined ? undefined : callParentOf(above);
  }
  return depth;
}

/**
 * The answer of a sub-agent call that would start a child deeper than its tool allows (`maxDepth`):
 * an error result the model reads and goes on from, with no child started.
 */
export function tooDeep(
  runId: string,
  depth: number,
  tool: string,
  agent: string,
  maxDepth: number,
): ChildAnswer {
  const deep = depth > maxDepth ? `more than ${maxDepth}` : String(depth);
  return {
    content:
      `sub-agent tool ${tool} started no run of agent ${agent}: run ${runId} is ${deep} sub-agent ` +
      `calls deep already, and ${tool} starts none deeper than ${maxDepth} (its maxDepth). ` +
      "Go on without it: answer from what you have, or do the work yourself.",
    isError: true,
  };
}
