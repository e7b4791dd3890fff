import { ForbiddenError, InvalidInputError, NotFoundError } from "../core/errors.ts";
import { mayAccess, type Owner, ownerOf, ownerScope, type Principal } from "../core/principal.ts";
import type { EventStore, RunHead } from "../ports/eventStore.ts";
import type { Actor } from "./types.ts";

/** Who a control event records: the authenticated actor, and whom a request said it acted for. */
export interface Recorded {
  by: string;
  onBehalfOf?: string;
  reason?: string;
}

/**
 * What a Runlog scoped to a principal (`Runlog.as`) may see and do. Unscoped (no principal: a
 * program holding the store) everything is allowed and a request's own names are recorded as
 * given. Scoped, another owner's run is a NotFoundError, the same as a run that does not exist,
 * so a caller cannot learn which ids are taken; the actor recorded is the principal, and a name
 * the request gives goes beside it as `onBehalfOf`.
 */
export class Access {
  constructor(
    private readonly store: EventStore,
    readonly principal?: Principal,
  ) {}

  /** Refuse a run this principal may not see, as if it did not exist. */
  async check(runId: string): Promise<void> {
    if (this.principal === undefined || this.principal.admin === true) return;
    this.checkHead(runId, await this.store.getHead(runId));
  }

  /** As check, with the run's head already read (undefined: no such run). */
  checkHead(runId: string, head: RunHead | undefined): void {
    const principal = this.principal;
    if (principal === undefined || principal.admin === true) return;
    if (!head || !mayAccess(principal, head.owner))
      throw new NotFoundError(`run ${runId} not found`, { runId });
  }

  /** Refuse what only an admin may do (sweep, redrive) to a scoped principal that is not one. */
  adminOnly(what: string): void {
    const principal = this.principal;
    if (principal === undefined || principal.admin === true) return;
    throw new ForbiddenError(`${what} acts on every owner's runs: only an admin may ask for it`);
  }

  /** The owner scope a listing is held to: none unscoped or for an admin. */
  listScope(): string | undefined {
    const principal = this.principal;
    return principal === undefined || principal.admin === true ? undefined : ownerScope(ownerOf(principal));
  }

  /**
   * The owner a new run records: the one the request names, unscoped or for an admin (who acts for
   * anyone), else the principal's. A scoped principal that is not an admin starts only its own
   * runs: naming another owner is refused, never silently replaced.
   */
  ownerFor(asked: Owner | undefined): Owner | undefined {
    const principal = this.principal;
    if (principal === undefined) return asked;
    if (asked !== undefined && principal.admin === true) return asked;
    const own = ownerOf(principal);
    if (asked !== undefined && (asked.id !== own.id || asked.tenant !== own.tenant)) {
      throw new InvalidInputError(
        `owner: this Runlog acts as ${JSON.stringify(own)}, which is not an admin: the runs it starts are its own, not ${JSON.stringify(asked)}'s (name an owner from an unscoped Runlog or an admin's)`,
        { field: "owner" },
      );
    }
    return own;
  }

  /** What a decision or cancel records of who made it. */
  recorded(actor: Actor): Recorded {
    const { by, onBehalfOf, reason } = actor;
    const withReason = reason === undefined ? {} : { reason };
    if (this.principal === undefined) {
      return { by, ...(onBehalfOf === undefined ? {} : { onBehalfOf }), ...withReason };
    }
    // Recorded as the principal, a claimed `by` can only go where `onBehalfOf` goes: both would lose one.
    const other = by === this.principal.id ? undefined : by;
    if (other !== undefined && onBehalfOf !== undefined) {
      throw new InvalidInputError(
        `by: ${JSON.stringify(other)} cannot be recorded beside onBehalfOf ${JSON.stringify(onBehalfOf)}: this Runlog acts as ${this.principal.id}, which is recorded as by, so give whom it acts for once, as onBehalfOf`,
        { field: "by" },
      );
    }
    const claimed = onBehalfOf ?? other;
    return {
      by: this.principal.id,
      ...(claimed === undefined ? {} : { onBehalfOf: claimed }),
      ...withReason,
    };
  }

  /** The caller a person's resume or send records as `actor`: the principal, when scoped. */
  actorOf(asked: { actor?: string; onBehalfOf?: string }): { actor?: string; onBehalfOf?: string } {
    const actor = this.principal?.id ?? asked.actor;
    return {
      ...(actor === undefined ? {} : { actor }),
      ...(asked.onBehalfOf === undefined ? {} : { onBehalfOf: asked.onBehalfOf }),
    };
  }
}
