import type { Lease } from "../ports/eventStore.ts";
import type { ReadDeps } from "./deps.ts";

type LivenessDeps = Pick<ReadDeps, "clock" | "leaseMs" | "orchestrator">;

/**
 * The one answer to "is a live executor holding this run": its lease has time left and its holder
 * is alive. The holder is told when the lease was claimed (or last renewed), `until` less the lease
 * time, so an owner whose execution has not started yet, moments after its claim, is not gone.
 * Resume, sweep, `ls`, resume-point and outcome all ask this, so none of them calls a run
 * interrupted that another would refuse to take over.
 */
export async function leaseIsLive(deps: LivenessDeps, lease: Lease | undefined): Promise<boolean> {
  if (!lease || lease.until <= deps.clock.now().getTime()) return false;
  return deps.orchestrator.isAlive(lease.owner, lease.until - deps.leaseMs);
}
