import * as z from "zod";
import { Runlog } from "../lib/api/runlog.ts";
import type { Actor, RunOutcome } from "../lib/api/types.ts";
import { outcomeView } from "../lib/api/views.ts";
import type { BenignReason } from "../lib/core/errors.ts";
import type { Principal } from "../lib/core/principal.ts";
import type { JsonValue } from "../lib/core/structuredOutput.ts";
import { awsDeps } from "./deps.ts";
import { eventPrincipal } from "./eventOwner.ts";
import { controlHandler } from "./handler.ts";
import { CancelRunDetail, DecideDetail, SendMessageDetail, steeringEvent } from "./schemas.ts";

/** The steering events, one schema each, told apart by `detail-type` so a bad one's issues name its own fields. */
const Schema = z.discriminatedUnion("detail-type", [
  steeringEvent("runlog.SendMessage", SendMessageDetail),
  steeringEvent("runlog.Decide", DecideDetail),
  steeringEvent("runlog.CancelRun", CancelRunDetail),
]);
type SteerEvent = z.output<typeof Schema>;

/** What the function answers: the run's outcome once it acted, or why there was nothing to do. */
export type SteerAnswer =
  | (RunOutcome<JsonValue> & { acted: true })
  | { runId: string; acted: false; reason: BenignReason };

/** Who decides or cancels, as the HTTP API says it: the sender, and a detail's `by` as whom it acts for. */
function actorOf(
  principal: Principal,
  detail: { by?: string | undefined; reason?: string | undefined },
): Actor {
  return {
    by: detail.by ?? principal.id,
    ...(detail.reason === undefined ? {} : { reason: detail.reason }),
  };
}

/** Through the library API scoped to the sender, as the HTTP routes act for their caller. */
async function steer(
  runlog: Runlog,
  principal: Principal,
  event: SteerEvent,
): Promise<RunOutcome<JsonValue>> {
  // The event's id is the operation's key: a redelivery (EventBridge, Lambda's retries, a redrive) finds it in the log.
  const keyed = { idempotencyKey: event.id };
  switch (event["detail-type"]) {
    case "runlog.SendMessage":
      return runlog.send(event.detail.runId, event.detail.message, keyed);
    case "runlog.Decide": {
      const { runId, callId, approved } = event.detail;
      const actor = actorOf(principal, event.detail);
      return approved
        ? runlog.approve(runId, callId, actor, keyed)
        : runlog.reject(runId, callId, actor, keyed);
    }
    case "runlog.CancelRun":
      return runlog.cancel(event.detail.runId, actorOf(principal, event.detail), keyed);
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled steering event ${JSON.stringify(unhandled)}`);
    }
  }
}

/**
 * A conflict that leaves nothing to do is answered (a decision recorded whose run someone else
 * resumed first, a cancelled or superseded run). A message to a run being executed is not: it
 * fails, so Lambda tries it again and, after its retries, it waits in the dead-letter queue to be
 * redriven, never dropped.
 */
function benignAnswer(event: SteerEvent, reason: BenignReason): SteerAnswer | undefined {
  if (event["detail-type"] === "runlog.SendMessage" && reason === "running") return undefined;
  return { runId: event.detail.runId, acted: false, reason };
}

/**
 * Steers runs from events on the deployment's bus: `runlog.SendMessage` (continue a run with a
 * message), `runlog.Decide` (approve or reject a waiting call) and `runlog.CancelRun`, each
 * validated with the HTTP API's schemas and done through the same library calls as its route,
 * for the sender (see eventPrincipal): another owner's run is not found. The event's id is the
 * operation's idempotency key, so the same event delivered again acts once.
 */
export const handler = controlHandler(
  "steerRun",
  Schema,
  async (deps, event): Promise<SteerAnswer> => {
    const principal = eventPrincipal(event, (await awsDeps()).trustedEventSources);
    const outcome = await steer(new Runlog(deps).as(principal), principal, event);
    return { ...outcomeView(outcome), acted: true };
  },
  {
    keys: (event) => ({
      runId: event.detail.runId,
      ...(event["detail-type"] === "runlog.Decide" ? { callId: event.detail.callId } : {}),
    }),
    answer: benignAnswer,
  },
);
