import { StaleError } from "../../core/errors.ts";
import type { EventStore } from "../../ports/eventStore.ts";
import { checkRepeatedly } from "../repeatedCheck.ts";

export interface LeaseKeeperOptions {
  store: EventStore;
  runId: string;
  owner: string;
  leaseMs: number;
  /** Aborted, with a StaleError, once the execution can no longer show it holds the run. */
  controller: AbortController;
  /** True once the execution is giving the run up (Finish, Handoff): its lease is no longer kept. */
  closing: () => boolean;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Renew an execution's lease every third of its time while it runs. A renewal answered `false`
 * (the lease is someone else's now) stops the execution at once. A renewal that fails is
 * repaired by the next one; but when none has succeeded for a whole lease time, another
 * executor may already have taken the run over, so the execution stops. Either way the abort
 * reason says why. Returns the function that stops renewing.
 */
export function keepLease(options: LeaseKeeperOptions): () => void {
  const { store, runId, owner, leaseMs, controller, closing } = options;
  const now = options.now ?? Date.now;
  const stop = (reason: StaleError) => {
    if (!closing()) controller.abort(reason);
  };
  return checkRepeatedly({
    intervalMs: Math.max(50, Math.floor(leaseMs / 3)),
    wanted: () => !closing() && !controller.signal.aborted,
    check: async () => {
      if (await store.renewLease(runId, { owner, until: now() + leaseMs })) return;
      stop(
        new StaleError(
          `run ${runId}: its lease is no longer ${owner}'s (another executor took the run over)`,
          { runId },
        ),
      );
    },
    failingForMs: leaseMs,
    failing: (since, error) =>
      stop(
        new StaleError(
          `run ${runId}: ${owner} could not renew its lease for ${since} ms, so it can no longer show it holds the run`,
          { cause: error, runId },
        ),
      ),
    now,
  });
}
