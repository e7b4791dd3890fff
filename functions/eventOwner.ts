import type { Owner, Principal } from "../lib/core/principal.ts";

/** The owner the sender account's runs get: EventBridge sets `account`, the sender cannot. */
export const accountOwner = (account: string): Owner => ({ id: `account:${account}` });

/**
 * Whose run an event starts: the sender account's, or the `detail.owner` a source listed in
 * `trusted` (the configuration's trustedEventSources) names; any other sender's `detail.owner` is ignored.
 */
export function eventOwner(
  event: {
    source: string;
    account: string;
    detail: { owner?: { id: string; tenant?: string | undefined } | undefined };
  },
  trusted: readonly string[],
): Owner {
  const claimed = event.detail.owner;
  if (claimed === undefined || !trusted.includes(event.source)) return accountOwner(event.account);
  return claimed.tenant === undefined ? { id: claimed.id } : { id: claimed.id, tenant: claimed.tenant };
}

/**
 * Who an event acts as (a ResumeRun, a steering event): the owner its sender's StartRun events
 * give their runs (eventOwner), so it reaches exactly those runs, and its actions are recorded
 * as that principal's.
 */
export function eventPrincipal(
  event: Parameters<typeof eventOwner>[0],
  trusted: readonly string[],
): Principal {
  const owner = eventOwner(event, trusted);
  return owner.tenant === undefined ? { id: owner.id } : { id: owner.id, tenant: owner.tenant };
}
