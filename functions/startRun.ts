import { checkEventModel } from "../lib/runtime/modelAllow.ts";
import { startRun } from "../lib/steps/start.ts";
import { awsDeps } from "./deps.ts";
import { eventOwner } from "./eventOwner.ts";
import { controlHandler } from "./handler.ts";
import { eventBridge, StartRunDetail } from "./schemas.ts";
import { defined } from "./stepInput.ts";

/** The run an event starts: its own id, or the event's, so a redelivered event names the same run. */
const runIdOf = (event: { id: string; detail: { runId?: string | undefined } }) =>
  event.detail.runId ?? `evt-${event.id}`;

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
    const { agent, input, model, metadata, limits, modelSettings } = event.detail;
    checkEventModel(model);
    const owner = eventOwner(event, (await awsDeps()).trustedEventSources);
    return startRun(deps, {
      agent,
      input,
      runId: runIdOf(event),
      owner,
      ...defined({ model, metadata, limits, modelSettings }),
    });
  },
  {
    keys: (event) => ({ runId: runIdOf(event) }),
    answer: (event, reason) => ({ runId: runIdOf(event), created: false, reason }),
  },
);
