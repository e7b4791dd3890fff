import type { ResumeKind, ToolCall } from "../core/eventFields.ts";
import type { RunHead } from "../ports/eventStore.ts";
import type { RunOutcome } from "../steps/outcome.ts";
import type { ResumeResult } from "../steps/resume.ts";
import type { ResumePointAnswer } from "./runlog.ts";
import type { RunOutcome as ApiOutcome } from "./types.ts";

/** A run's status and output, as `runlog run --json` prints it and the HTTP API answers (no `created`). */
export function outcomeView<Output>({
  runId,
  status,
  output,
  invalidOutput,
}: ApiOutcome<Output>): ApiOutcome<Output> {
  return { runId, status, output, ...(invalidOutput === undefined ? {} : { invalidOutput }) };
}

/**
 * A resume's answer, as `runlog resume --json` prints it and `POST /runs/{id}/resume` answers: the
 * run's outcome, and whether this request moved the run on (which generation, from where) or why
 * it did not, so a caller that arrived after another resumer finished can tell it resumed nothing.
 */
export function resumeView(outcome: RunOutcome & { resume: ResumeResult }): ResumeView {
  return { ...outcomeView(outcome), ...resumeResultView(outcome.resume) };
}

/** What `POST /runs/{id}/resume` answers: the run's outcome and what the resume did. */
export type ResumeView = RunOutcome & ReturnType<typeof resumeResultView>;

/** What a resume did, without the run's outcome: what the resume function answers a ResumeRun event. */
export function resumeResultView(resume: ResumeResult) {
  return resume.resumed
    ? { runId: resume.runId, resumed: true as const, generation: resume.generation, kind: resume.kind }
    : { runId: resume.runId, resumed: false as const, reason: resume.classification.reason };
}

/** A run-head without its lease: who holds a run is an internal of the executors. */
export function headView({
  lease: _,
  leaseVersion: __,
  ...head
}: RunHead): Omit<RunHead, "lease" | "leaseVersion"> {
  return head;
}

/** A tool call as a resume point lists it: its id, name and arguments. */
export type BriefCall = Pick<ToolCall, "id" | "name" | "arguments">;

const brief = (calls: readonly ToolCall[]): BriefCall[] =>
  calls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));

/** A resume point as JSON (resumePointView). */
export type ResumePointView =
  | {
      resumable: true;
      kind: ResumeKind;
      description: string;
      unansweredToolCalls: BriefCall[];
      interruptedToolCalls: BriefCall[];
      rerunToolCalls: BriefCall[];
    }
  | {
      resumable: false;
      reason: Extract<ResumePointAnswer, { resumable: false }>["reason"];
      description: string;
      seq?: number;
      waitingToolCalls?: BriefCall[];
    };

/**
 * A resume point as JSON: what `runlog resume-point --json` prints and
 * `GET /runs/{id}/resume-point` answers.
 */
export function resumePointView(point: ResumePointAnswer): ResumePointView {
  if (point.resumable) {
    return {
      resumable: true,
      kind: point.kind,
      description: point.description,
      unansweredToolCalls: brief(point.unansweredToolCalls),
      interruptedToolCalls: brief(point.interruptedToolCalls),
      rerunToolCalls: brief(point.rerunToolCalls),
    };
  }
  return {
    resumable: false,
    reason: point.reason,
    description: point.description,
    ...("seq" in point ? { seq: point.seq } : {}),
    ...("waitingToolCalls" in point && point.waitingToolCalls
      ? { waitingToolCalls: brief(point.waitingToolCalls) }
      : {}),
  };
}

/** A tool call as resume-point lists it: its id, then the call as the model made it. */
export function describeCall(call: ToolCall): string {
  return `${call.id}  ${call.name}(${call.arguments})`;
}

/** A resume point in words, a line each: what `runlog resume-point` prints and the run viewer shows. */
export function resumePointLines(point: ResumePointAnswer): string[] {
  if (point.resumable) {
    return [
      `resumable: ${point.kind}`,
      point.description,
      ...point.rerunToolCalls.map((call) => `  run again: ${describeCall(call)}`),
      ...point.interruptedToolCalls.map((call) => `  answered as interrupted: ${describeCall(call)}`),
    ];
  }
  const waiting = ("waitingToolCalls" in point ? point.waitingToolCalls : undefined) ?? [];
  return [
    `not resumable: ${point.reason}`,
    point.description,
    ...waiting.map((call) => `  waiting: ${describeCall(call)}`),
  ];
}
