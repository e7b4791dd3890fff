/** What a correct log implies, from the resume table (docs/concepts/resume-table.md): the oracle the classifier is checked against. */
export type Expected =
  | { resumable: true; kind: string; unanswered: string[]; interrupted: string[] }
  | { resumable: false; reason: string; waiting?: string[] };

/** The tool calls of the open batch, and what became of each. */
export interface Batch {
  calls: string[];
  approvals: Set<string>;
  started: Set<string>;
  results: Set<string>;
  decisions: Map<string, boolean>;
}

/** Where a modelled run stands. */
export interface RunState {
  phase: "model" | "batch" | "ended" | "cancelled";
  /** What resuming does while the model is next: call it, or have it continue or retry a response. */
  modelKind: string;
  /** The stop of the final response, once the run ended. */
  finalStop: string;
  batch?: Batch;
}

/** What the resume table says a run in this state resumes with (written apart from lib/core). */
export function expectedFor(state: RunState): Expected {
  const REASONS: Record<string, string> = {
    stop: "completed",
    refusal: "refused",
    context_full: "context_full",
  };
  switch (state.phase) {
    case "cancelled":
      return { resumable: false, reason: "cancelled" };
    case "ended":
      return { resumable: false, reason: REASONS[state.finalStop] ?? "unknown_stop" };
    case "model":
      return { resumable: true, kind: state.modelKind, unanswered: [], interrupted: [] };
    case "batch": {
      const b = state.batch!;
      const open = b.calls.filter((id) => !b.results.has(id));
      const interrupted = open.filter((id) => b.started.has(id));
      const undecided = open.filter((id) => b.approvals.has(id) && !b.decisions.has(id));
      // Decided calls run once no call of the batch waits for a decision; the others at once.
      const runnable = open.filter(
        (id) =>
          !b.started.has(id) && (!b.approvals.has(id) || (b.decisions.has(id) && undecided.length === 0)),
      );
      if (interrupted.length > 0) {
        return {
          resumable: true,
          kind: "recover_tools",
          unanswered: [...interrupted, ...runnable],
          interrupted,
        };
      }
      if (runnable.length > 0)
        return { resumable: true, kind: "run_tools", unanswered: runnable, interrupted: [] };
      return { resumable: false, reason: "awaiting_approval", waiting: undecided };
    }
  }
}
