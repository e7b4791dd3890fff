import { LeaseHeldError } from "../core/errors.ts";
import type { Lease, RunHead } from "../ports/eventStore.ts";
import type { ControlDeps } from "./deps.ts";

/** A fresh lease for this owner, valid for the configured time from now. */
export function leaseFor(deps: ControlDeps, owner: string): Lease {
  return { owner, until: deps.clock.now().getTime() + deps.leaseMs };
}

/**
 * Refuse to start a second executor while the current one is alive. A lease
 * whose time ran out, or whose holder is gone (a killed process, an execution
 * that is no longer running), is free to take over.
 */
export async function assertLeaseFree(deps: ControlDeps, head: RunHead): Promise<void> {
  const lease = head.lease;
  if (!lease) return;
  if (lease.until <= deps.clock.now().getTime()) return;
  if (!(await holderAlive(deps, lease))) return;
  throw new LeaseHeldError(
    `run ${head.runId} is being executed by ${lease.owner} (lease valid until ${new Date(lease.until).toISOString()}); ` +
      "not resuming it twice",
  );
}

/**
 * Whether a lease's holder still executes the run. It is told when the lease
 * was claimed (or last renewed), `until` less the lease time: an owner whose
 * execution has not started yet, moments after its claim, is not gone.
 */
export function holderAlive(deps: ControlDeps, lease: Lease): Promise<boolean> {
  return deps.orchestrator.isAlive(lease.owner, lease.until - deps.leaseMs);
}
