import { assertNever } from "../../core/assertNever.ts";
import type { NotResumable } from "../../core/classify.ts";
import type { ResumeKind } from "../../core/eventFields.ts";
import type { Outcome } from "./opening.ts";

/** What a resume (and everything answered like one) tells its caller. */
export type ResumeResult =
  | {
      resumed: true;
      runId: string;
      generation: number;
      kind: ResumeKind;
      /**
       * False when this request found its generation opened already (its own earlier attempt, or
       * the same request from someone else) and only made sure that generation's execution runs.
       */
      opened: boolean;
    }
  | { resumed: false; runId: string; classification: NotResumable };

/** The public shape of an outcome, as the API, the functions and the CLI read it. */
export function resumeResult(outcome: Outcome): ResumeResult {
  const { runId } = outcome;
  switch (outcome.kind) {
    case "not_resumable":
      return { resumed: false, runId, classification: outcome.classification };
    case "handed_over":
      return { resumed: true, runId, generation: outcome.generation, kind: "call_model", opened: false };
    case "created":
    case "opened":
      return { resumed: true, runId, generation: outcome.generation, kind: outcome.resumeKind, opened: true };
    case "completed":
    case "in_progress":
    case "went_on":
      return {
        resumed: true,
        runId,
        generation: outcome.generation,
        kind: outcome.resumeKind,
        opened: false,
      };
    default:
      return assertNever(outcome);
  }
}
