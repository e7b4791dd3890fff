import { classify } from "../../core/classify.ts";
import { benignReason } from "../../core/errors.ts";
import { childAnswer, MAX_SUBAGENT_DEPTH } from "../../core/subagents.ts";
import type { ControlDeps } from "../deps.ts";
import { findTool, parseArguments } from "../executeTool.ts";
import { leaseIsLive } from "../liveness.ts";
import { loadRun } from "../logReads.ts";
import { answerCall, resumeAsSubagent, resumeParent } from "./answer.ts";
import { startChild } from "./startChild.ts";

/**
 * A parent that waits for its sub-agent calls looks each child up, never running anything again: a
 * child that never started (its parent died between `tool_started` and the start) is started; one
 * that ended answers its call; one that stopped where it can go on, with nobody executing it, is
 * resumed. Run by the parent's Finish once it rests `waiting`, by a resume of the parent and by the
 * sweep. Every action is idempotent, so any number of lookers converge on one child and one result.
 * A child that itself waits for children of its own is looked up in turn, down the whole tree, so
 * resuming the run a user started carries on a crash anywhere below it. Returns the runs it did
 * not look into, being MAX_SUBAGENT_DEPTH levels down: none in a tree the nesting bound let grow
 * (agentAsTool's `maxDepth`), only in one made before that bound; each can be resumed by itself.
 */
export async function lookUpChildren(control: ControlDeps, parentRunId: string): Promise<string[]> {
  const beyond: string[] = [];
  await lookUpTree(control, parentRunId, 0, new Set(), beyond);
  return beyond;
}

/**
 * Look a waiting run's children up, `depth` levels below the run the look-up began at. The set of
 * runs seen stops a malformed log that names an ancestor as its child; the depth bound, the
 * deepest any tool lets sub-agent runs nest, keeps the work a look-up does bounded.
 */
async function lookUpTree(
  control: ControlDeps,
  parentRunId: string,
  depth: number,
  seen: Set<string>,
  beyond: string[],
): Promise<void> {
  if (seen.has(parentRunId)) return;
  if (depth >= MAX_SUBAGENT_DEPTH) {
    beyond.push(parentRunId);
    return;
  }
  seen.add(parentRunId);
  const log = await loadRun(control, parentRunId);
  const point = classify(log);
  if (point.resumable || point.reason !== "awaiting_children") {
    // Everything answered meanwhile (a child ended as the parent came to rest): go on.
    if (point.resumable) await resumeParent(control, parentRunId);
    return;
  }
  for (const { call, childRunId } of point.waitingChildren ?? []) {
    const head = await control.store.getHead(childRunId);
    if (!head) {
      const first = log[0];
      const agent = first?.type === "run_started" ? control.agents(first.agent) : undefined;
      const tool = agent && findTool(agent, call.name);
      const parsed = tool?.subagent ? parseArguments(tool, call) : undefined;
      const args = parsed && "args" in parsed ? (parsed.args as { input: string }) : undefined;
      const failed =
        tool?.subagent && args
          ? await startChild(control, log, call, tool.subagent.agent, args.input)
          : {
              content: `sub-agent tool ${call.name} is no longer known to agent ${first?.type === "run_started" ? first.agent : "?"}`,
              isError: true,
            };
      if (failed) await answerCall(control, parentRunId, call.id, failed);
      continue;
    }
    const childLog = await loadRun(control, childRunId);
    const answer = childAnswer(childRunId, { events: childLog });
    if (answer) {
      await answerCall(control, parentRunId, call.id, answer);
      continue;
    }
    const childPoint = classify(childLog);
    if (!childPoint.resumable && childPoint.reason === "awaiting_children") {
      // A child waiting for its own children: carry those on; the child goes on once they answer it.
      await lookUpTree(control, childRunId, depth + 1, seen, beyond);
      continue;
    }
    if (!childPoint.resumable || (await leaseIsLive(control, head.lease))) continue;
    try {
      await resumeAsSubagent(control, childRunId);
    } catch (error) {
      if (benignReason(error) === undefined) throw error;
    }
  }
}
