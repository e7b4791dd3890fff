/**
 * Who is asking, and whose a run is. A run's owner is recorded in its `run_started`; a caller may
 * act on a run when its owner scope is the caller's, or when the caller is an admin. Pure: the
 * entry points (lib/http's lambda principal, the CLI's OS user) say who the principal is.
 */

/** An authenticated caller: an IAM principal ARN, a JWT subject, or a local OS user (`local:NAME`). */
export interface Principal {
  /** Who it is, as the authenticator said: recorded as `by` of what it does. */
  readonly id: string;
  /** The tenant a JWT claim names: runs are shared by everyone of one tenant. @default none: runs are the principal's own */
  readonly tenant?: string;
  /** Sees and acts on every run (an admin scope or an allowed principal). @default false */
  readonly admin?: boolean;
}

/** The owner recorded in a run's `run_started`. */
export interface Owner {
  readonly id: string;
  /** Absent (or undefined, as a decoded event may hold it) when the run is the principal's own. */
  readonly tenant?: string | undefined;
}

/** The owner a principal's new runs get. */
export function ownerOf(principal: Principal): Owner {
  return principal.tenant === undefined
    ? { id: principal.id }
    : { id: principal.id, tenant: principal.tenant };
}

/** The one key runs are listed and counted by: a tenant's runs share it, else the principal's own. */
export function ownerScope(owner: Owner): string {
  return owner.tenant === undefined ? `principal:${owner.id}` : `tenant:${owner.tenant}`;
}

/** Whether a principal may see and act on a run with this owner; an ownerless run (recorded before owners) is an admin's only. */
export function mayAccess(principal: Principal, owner: Owner | undefined): boolean {
  if (principal.admin === true) return true;
  if (owner === undefined) return false;
  return ownerScope(owner) === ownerScope(ownerOf(principal));
}

/** Who the callers are and which of them are admins: from the configuration (lib/runtime/configSchema.ts: auth, tenantClaim, adminScope, adminPrincipals). */
export interface PrincipalPolicy {
  /** `iam`: the SigV4 principal's ARN; `jwt`: the JWT authorizer's `sub` claim. @default "iam" */
  auth?: "iam" | "jwt";
  /** With `jwt`, the claim naming the caller's tenant. @default none: each subject its own */
  tenantClaim?: string;
  /** With `jwt`, the scope in the token's `scope` claim that makes the caller an admin. @default none */
  adminScope?: string;
  /** With `iam`, the ARN patterns (`*` any run of characters) of admin callers. @default none */
  adminPrincipals?: readonly string[];
}

/** The highest per-owner cap of running runs a deployment may set (`maxRunningPerOwner`): countRunning reads at most this many. */
export const MAX_RUNNING_PER_OWNER = 1000;
