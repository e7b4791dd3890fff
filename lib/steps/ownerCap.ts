import { TooManyRunsError } from "../core/errors.ts";
import { type Owner, ownerScope } from "../core/principal.ts";
import type { ControlDeps } from "./deps.ts";

/**
 * Refuse to set one more run of an owner running at the deployment's cap (`maxRunningPerOwner`):
 * a start, a fork that goes on, a new message to a run that rests. A retried request whose run
 * exists (or already runs) is not asked: it is answered as the retry it is; recovery (a resume, the
 * sweep, a person's decision) goes on with work already admitted. Counted before anything is
 * written, so two requests at once may both pass at cap minus one: a bound on a caller's share of
 * the deployment, not a lock.
 */
export async function withinOwnerCap(deps: ControlDeps, owner: Owner | undefined): Promise<void> {
  const cap = deps.maxRunningPerOwner;
  if (cap === undefined || owner === undefined) return;
  const scope = ownerScope(owner);
  if ((await deps.store.countRunning(scope, cap)) >= cap) throw new TooManyRunsError(scope, cap);
}

/** As withinOwnerCap, for a run that exists: asked (its head read) only when capped and it is not running already. */
export async function restingWithinOwnerCap(deps: ControlDeps, runId: string): Promise<void> {
  if (deps.maxRunningPerOwner === undefined) return;
  const head = await deps.store.getHead(runId);
  if (head === undefined || head.status === "running") return;
  await withinOwnerCap(deps, head.owner);
}
