import type { Owner } from "../lib/core/principal.ts";
import { checkEventModel } from "../lib/runtime/modelAllow.ts";
import { startRun } from "../lib/steps/start.ts";
import { awsDeps } from "./deps.ts";
import { controlHandler } from "./handler.ts";
import { defined, eventBridge, StartRunDetail } from "./schemas.ts";

/** The run an event starts: its own id, or the event's, so a redelivered event names the same run. */
const runIdOf = (event: { id: string; detail: { runId?: string | undefined } }) =>
  event.detail.runId ?? `evt-${event.id}`;

/** The owner the sender account's runs get: EventBridge sets `account`, the sender cannot. */
export const accountOwner = (account: string): Owner => ({ id: `account:${account}` });

/**
 * Whose run an event starts: the sender account's, or the `detail.owner` a source listed in
 * `trusted` (RUNLOG_TRUSTED_EVENT_SOURCES) names; any other sender's `detail.owner` is ignored.
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
 * Starts a run from a `runlog.StartRun` EventBridge event (see cdk/ for the rule and the event's
 * shape), validated as POST /runs is, never naming a file (`scripted:FILE`), owned by the sender
 * account. The same event delivered again is answered `created: false` by startRun itself; `answer`
 * covers a redelivery that loses a race to open the run's next generation (its first execution
 * ended without a step, and another redelivery or a resume claimed the run first).
 */
export const handler = controlHandler(
  "startRun",
  eventBridge("runlog.StartRun", StartRunDetail),
  async (deps, event) => {
    const { agent, input, model } = event.detail;
    checkEventModel(model);
    const owner = eventOwner(event, (await awsDeps()).trustedEventSources);
    return startRun(deps, { agent, input, runId: runIdOf(event), owner, ...defined({ model }) });
  },
  {
    keys: (event) => ({ runId: runIdOf(event) }),
    answer: (event, reason) => ({ runId: runIdOf(event), created: false, reason }),
  },
);
