import { RetryableError, RunCancelledError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";

export interface CancelWatchOptions {
  runId: string;
  /** The run's newest event, as stored now (a cancel is always the last event of a run). */
  lastEvent: () => Promise<RunEvent | undefined>;
  /** Aborted with a RunCancelledError once the cancel is seen. */
  controller: AbortController;
  /** How often to look. */
  intervalMs: number;
  /**
   * How long looks may keep failing before the watch gives up and aborts with a RetryableError
   * (the step can no longer hear a cancel, so it must not go on unwatched; its retry watches anew).
   */
  blindMs: number;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Look for a cancel in a run's log every `intervalMs` while a step runs, and abort the step's
 * signal when one appears, so a long tool or model call stops when the run is cancelled, not
 * at its next write. A look that fails is repaired by the next one (a cancel stays the last
 * event, so a later look still sees it); looks failing for `blindMs` abort the step instead.
 * Returns the function that ends the watch.
 */
export function watchForCancel(options: CancelWatchOptions): () => void {
  const { runId, controller, intervalMs, blindMs } = options;
  const now = options.now ?? Date.now;
  let seenAt = now();
  let looking = false;
  const look = async () => {
    // One look at a time: a slow read is not stacked on by the next tick.
    if (looking || controller.signal.aborted) return;
    looking = true;
    try {
      const last = await options.lastEvent();
      seenAt = now();
      if (last?.type === "cancelled") {
        const why = last.reason === undefined ? "" : `: ${last.reason}`;
        controller.abort(new RunCancelledError(`run ${runId} was cancelled by ${last.by}${why}`));
      }
    } catch (error) {
      const blind = now() - seenAt;
      if (blind >= blindMs) {
        controller.abort(
          new RetryableError(
            `run ${runId}: could not read the log for ${blind} ms to look for a cancel; the step stops rather than run unwatched`,
            { cause: error },
          ),
        );
      }
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void look(), intervalMs);
  // A Lambda or CLI process waits for its work, never for this timer.
  timer.unref();
  return () => clearInterval(timer);
}
