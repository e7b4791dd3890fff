import { checkRepeatedly } from "../adapters/repeatedCheck.ts";
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
  const { runId, controller } = options;
  return checkRepeatedly({
    intervalMs: options.intervalMs,
    wanted: () => !controller.signal.aborted,
    check: async () => {
      const last = await options.lastEvent();
      if (last?.type !== "cancelled") return;
      const why = last.reason === undefined ? "" : `: ${last.reason}`;
      controller.abort(
        new RunCancelledError(`run ${runId} was cancelled by ${last.by}${why}`, { runId, seq: last.seq }),
      );
    },
    failingForMs: options.blindMs,
    failing: (blind, error) =>
      controller.abort(
        new RetryableError(
          `run ${runId}: could not read the log for ${blind} ms to look for a cancel; the step stops rather than run unwatched`,
          { cause: error, runId },
        ),
      ),
    unref: true,
    ...(options.now ? { now: options.now } : {}),
  });
}
