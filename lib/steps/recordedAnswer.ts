import { canonicalValue } from "../core/canonicalJson.ts";
import { NotFoundError } from "../core/errors.ts";
import type { ToolCall } from "../core/eventFields.ts";
import type { RunEvent } from "../core/events.ts";
import { ownerScope } from "../core/principal.ts";
import { missingAnswer, recordedCallsOf, recordedKeyOf, unansweredCallsOf } from "../core/replayCalls.ts";
import type { Tool } from "../ports/tool.ts";
import type { StepDeps } from "./deps.ts";
import { parseArguments, type ToolOutcome } from "./executeTool.ts";
import { loadRun } from "./logReads.ts";

/**
 * Replay with recorded tools where the steps run (in process and in the RunTool Lambda): a run
 * whose metadata says `replayTools: "recorded"` answers each tool call from the run it replays
 * (`replayOf`), never running the tool. Derived from the two logs alone, so a retried step, a
 * resume or another Lambda gives the same answer: the Nth call of a tool with some arguments gets
 * the Nth recorded result of that tool with those arguments, as lib/core/replay.ts's Recording
 * gives them out. The metadata is written by the replay batch (lib/api/replayBatch.ts).
 */

/** The run a replay run replays, when it answers its tools from that run's recording. */
export function recordedReplayOf(events: readonly RunEvent[]): string | undefined {
  const started = events[0];
  if (started?.type !== "run_started") return undefined;
  const metadata = started.metadata;
  if (metadata?.replayTools !== "recorded" || typeof metadata.replayOf !== "string") return undefined;
  return metadata.replayOf;
}

/**
 * The answer the recording gives `call` (arguments `args`, parsed by `tool`), or undefined when
 * the run is not a replay with recorded tools. A call the recording has no (unused) match for, or
 * has only with no result (a decision never made, a call cut off), or a recording of another
 * owner's run or of no run, is answered with a tool error saying so.
 */
export async function recordedAnswer(
  deps: StepDeps,
  events: readonly RunEvent[],
  call: ToolCall,
  tool: Tool<unknown>,
  args: unknown,
): Promise<ToolOutcome | undefined> {
  const of = recordedReplayOf(events);
  if (of === undefined) return undefined;
  const fail = (why: string): ToolOutcome => ({ content: `${tool.name} failed: ${why}`, isError: true });
  let original: readonly RunEvent[];
  try {
    original = await loadRun(deps, of);
  } catch (error) {
    if (error instanceof NotFoundError) return fail(`the recording of run ${of} is not there to answer it`);
    throw error;
  }
  // A replay answers only from its own owner's runs: the metadata is the caller's to write.
  if (scopeOf(original) !== scopeOf(events))
    return fail(`the recording of run ${of} is not this run's owner's to answer it from`);
  const key = canonicalValue(args);
  const keyOf = recordedKeyOf(tool.parameters);
  const matching = recordedCallsOf(original).filter((c) => c.name === tool.name && keyOf(c) === key);
  const recorded = matching[earlierSameCalls(events, call, tool, key)];
  if (!recorded) {
    // The recording may have the call with no result (undecided, cut off): say so, as the library's replay does.
    const unanswered = unansweredCallsOf(original).find((c) => c.name === tool.name && keyOf(c) === key);
    return fail(missingAnswer(of, tool.name, key, unanswered));
  }
  return { content: recorded.content, isError: recorded.isError };
}

const scopeOf = (events: readonly RunEvent[]): string | undefined => {
  const started = events[0];
  return started?.type === "run_started" && started.owner ? ownerScope(started.owner) : undefined;
};

/** How many calls of this tool with these arguments the replay made before `call`: each took a recorded result. */
function earlierSameCalls(
  events: readonly RunEvent[],
  call: ToolCall,
  tool: Tool<unknown>,
  key: string,
): number {
  // The call's own response is the last that holds its id (ids repeat across runs' turns only).
  const at = events.findLastIndex(
    (e) => e.type === "model_response" && e.toolCalls.some((c) => c.id === call.id),
  );
  let count = 0;
  for (const event of events.slice(0, at + 1)) {
    if (event.type !== "model_response" || event.stop !== "tool_calls") continue;
    for (const earlier of event.toolCalls) {
      if (event === events[at] && earlier.id === call.id) return count;
      if (earlier.name !== tool.name) continue;
      const parsed = parseArguments(tool, earlier);
      if ("args" in parsed && canonicalValue(parsed.args) === key) count++;
    }
  }
  return count;
}
