import type { RunEvent, RunStarted } from "../core/events.ts";
import type { Owner } from "../core/principal.ts";
import { forkParentOf } from "../core/subagents.ts";
import type { Lease, RunHead } from "../ports/eventStore.ts";

/**
 * The head createRun writes beside seq 1, the same in every store: running under the creator's
 * lease, or interrupted (for whoever resumes it) without one; a fork's head names its parent.
 */
export function newHead(first: RunStarted, lease: Lease | undefined, updatedAt: string): RunHead {
  return {
    runId: first.runId,
    agent: first.agent,
    status: lease ? "running" : "interrupted",
    lastSeq: 1,
    createdAt: first.at,
    updatedAt,
    leaseVersion: lease ? 1 : 0,
    ...(lease ? { lease } : {}),
    ...forkPointOf(first),
    ...(first.owner ? { owner: ownerCopy(first.owner) } : {}),
  };
}

/** A fork's head names the run it was copied from (a sub-agent's child names its parent's call in its log only). */
function forkPointOf(first: RunStarted): Pick<RunHead, "parent"> {
  const fork = forkParentOf(first.parent);
  return fork ? { parent: { runId: fork.runId, seq: fork.seq } } : {};
}

const ownerCopy = (owner: Owner): Owner =>
  owner.tenant === undefined ? { id: owner.id } : { id: owner.id, tenant: owner.tenant };

/**
 * The identity a missing head is rebuilt with, from the run's seq 1 (when it is a run_started):
 * the agent, the creation time and the fork point; `now` stands in for a lost seq 1's time.
 */
export function identityFrom(
  first: RunEvent | undefined,
  now: string,
): Pick<RunHead, "agent" | "createdAt" | "parent" | "owner"> {
  const started = first?.type === "run_started" ? first : undefined;
  return {
    agent: started?.agent ?? "unknown",
    createdAt: started?.at ?? now,
    ...(started ? forkPointOf(started) : {}),
    ...(started?.owner ? { owner: ownerCopy(started.owner) } : {}),
  };
}
