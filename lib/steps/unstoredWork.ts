import type { ModelReply } from "../ports/model.ts";
import type { ToolRun } from "./executeTool.ts";

/** Pieces of unstored work one process keeps of each kind; past that, the oldest is forgotten. */
const MAX_KEPT = 1_000;

/** A tool's outcome as it ran, or a model's reply as it came, with how long it took. */
export interface Kept<T> {
  value: T;
  ms: number;
}

/** Work of one kind, by run, generation and what it answers. */
export class KeptWork<T> {
  private readonly kept = new Map<string, Kept<T>>();

  get(runId: string, generation: number, what: string): Kept<T> | undefined {
    return this.kept.get(key(runId, generation, what));
  }

  keep(runId: string, generation: number, what: string, work: Kept<T>): void {
    const k = key(runId, generation, what);
    this.kept.delete(k);
    this.kept.set(k, work);
    // A Map iterates in insertion order: the first key is the oldest.
    if (this.kept.size > MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
  }

  forget(runId: string, generation: number, what: string): void {
    this.kept.delete(key(runId, generation, what));
  }
}

const key = (runId: string, generation: number, what: string) => `${runId}\u0000${generation}\u0000${what}`;

/**
 * Work a step finished but could not store, because the store kept failing past storeWithin:
 * kept by this process so the step's retry, when it runs here, stores the real work instead of
 * answering a tool call as interrupted or calling the model a second time. The local orchestrator
 * always retries a step in its own process; Step Functions retries a Lambda task on a warm
 * container of the same function often, not always.
 *
 * A retry that runs in another process (or after this one died, or after MAX_KEPT newer pieces)
 * finds nothing here and does what it does after a crash at the same point: a tool call is
 * answered as interrupted, which tells the model the tool may or may not have done its work (true:
 * it did, and only its result is lost), and a model turn is asked again, which has no side effect.
 * Nothing is recorded that did not happen. The key holds the generation, so a newer generation,
 * which a resume started on a log it classified afresh, never records an older one's work.
 */
export interface UnstoredWork {
  toolOutcomes: KeptWork<ToolRun>;
  modelReplies: KeptWork<ModelReply>;
}

/**
 * A process's unstored work, empty: made once where a process builds its deps (per cold start, or
 * once by the local runtime), which is exactly the life this memory may have, and carried in
 * deps (StepDeps.unstored) from step to step.
 */
export function unstoredWork(): UnstoredWork {
  return { toolOutcomes: new KeptWork(), modelReplies: new KeptWork() };
}
