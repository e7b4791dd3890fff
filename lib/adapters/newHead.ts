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
 * The identity a missing head is rebuilt with, from the run's seq 1: the agent, the creation time,
 * the fork point and the owner. Undefined when seq 1 is no `run_started`: events without one are
 * the copy of a fork that has not been created yet (a fork writes its copy before its seq 1 and
 * head, lib/steps/fork.ts), so there is no run to give a head, and the fork retried completes it.
 */
export function identityFrom(
  first: RunEvent | undefined,
): Pick<RunHead, "agent" | "createdAt" | "parent" | "owner"> | undefined {
  if (first?.type !== "run_started") return undefined;
  return {
    agent: first.agent,
    createdAt: first.at,
    ...forkPointOf(first),
    ...(first.owner ? { owner: ownerCopy(first.owner) } : {}),
  };
}
