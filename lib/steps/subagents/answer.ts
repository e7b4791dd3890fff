import { classifyFacts } from "../../core/classify.ts";
import { benignReason } from "../../core/errors.ts";
import { RESUMED_BY } from "../../core/eventConstants.ts";
import type { RunEvent } from "../../core/events.ts";
import type { LogView } from "../../core/log.ts";
import { type ChildAnswer, callParentOf, childAnswer } from "../../core/subagents.ts";
import type { ControlDeps } from "../deps.ts";
import { openGeneration } from "../generation/open.ts";
import { readTail, viewFacts } from "../logReads.ts";
import { writeNext } from "../writeNext.ts";

/**
 * A child run that ended answers its parent's call with its ending, and the parent goes on. Called
 * wherever a child ends: its Finish, its cancel, a sweep that finds it ended, its parent looking it
 * up. Idempotent: the call's result is written once (the first writer wins under the seq lock),
 * and the resume that follows is the one every waiter makes. A child that has not ended, or that is
 * no sub-agent's, answers nothing.
 */
export async function answerParent(control: ControlDeps, first: RunEvent, view: LogView): Promise<void> {
  if (first.type !== "run_started") return;
  const parent = callParentOf(first);
  if (parent === undefined) return;
  const answer = childAnswer(first.runId, view);
  if (answer === undefined) return;
  await answerCall(control, parent.runId, parent.callId, answer);
}

/**
 * Write a sub-agent call's result unless it has one, then resume the parent if that leaves it
 * nothing to wait for. A parent that moved on (cancelled, the batch closed by a new message) takes
 * nothing.
 */
export async function answerCall(
  control: ControlDeps,
  parentRunId: string,
  callId: string,
  answer: ChildAnswer,
): Promise<void> {
  await writeNext<boolean>(control, parentRunId, "any", (_, facts) => {
    const batch = facts.batch;
    const call = batch?.open ? batch.response.toolCalls.find((c) => c.id === callId) : undefined;
    if (facts.cancelled || !call || !batch!.started.has(callId) || batch!.results.has(callId)) {
      return { done: false };
    }
    return {
      append: {
        type: "tool_result",
        callId,
        name: call.name,
        content: answer.content,
        isError: answer.isError,
      },
      result: () => true,
    };
  });
  control.faults.reached("subagent:after-answer");
  await resumeParent(control, parentRunId);
}

/**
 * Resume a parent whose log can go on, as the child that answered it. Its own execution still
 * running is no failure: that execution finds the result, or its Finish looks its children up
 * after letting the run rest (finish.ts), so one of the two always moves it.
 */
export async function resumeParent(control: ControlDeps, parentRunId: string): Promise<void> {
  const tail = await readTail(control, parentRunId);
  if (!classifyFacts(viewFacts(control, parentRunId, tail)).resumable) return;
  try {
    await resumeAsSubagent(control, parentRunId);
  } catch (error) {
    if (benignReason(error) === undefined) throw error;
  }
}

/**
 * Resume a parent (or a child) as the sub-agent machinery: the resume path of `runlog resume`
 * (lib/steps/generation/), its `resumed` event by `subagent`.
 */
export async function resumeAsSubagent(control: ControlDeps, runId: string): Promise<void> {
  await openGeneration(control, { kind: "resume", runId, by: RESUMED_BY.subagent });
}
