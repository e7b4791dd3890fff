import * as z from "zod";
import { resumeResultView } from "../lib/api/views.ts";
import { type BenignReason, NotFoundError } from "../lib/core/errors.ts";
import { RESUMED_BY } from "../lib/core/eventConstants.ts";
import { mayAccess, type Owner, type Principal } from "../lib/core/principal.ts";
import { AWS_SWEEP } from "../lib/runtime/aws/handlerDeps.ts";
import { checkEventModel } from "../lib/runtime/modelAllow.ts";
import { recordOutsideStop } from "../lib/steps/outsideStop.ts";
import { resumeRun } from "../lib/steps/resume.ts";
import { recoverRun } from "../lib/steps/sweepCandidate.ts";
import type { SweepOutcome } from "../lib/steps/sweepPolicy.ts";
import { awsDeps } from "./deps.ts";
import { eventPrincipal } from "./eventOwner.ts";
import { controlHandler } from "./handler.ts";
import { ExecutionEndedDetail, eventBridge, ResumeRunDetail } from "./schemas.ts";
import { defined } from "./stepInput.ts";

const ResumeRunEvent = eventBridge("runlog.ResumeRun", ResumeRunDetail);
/** Told apart by `detail-type`, so a bad one's issues name its own fields; an execution's end comes from Step Functions only. */
const Schema = z.discriminatedUnion("detail-type", [
  eventBridge("Step Functions Execution Status Change", ExecutionEndedDetail).extend({
    source: z.literal("aws.states"),
  }),
  ResumeRunEvent,
]);
type ResumeEvent = z.output<typeof Schema>;

const runIdOf = (event: ResumeEvent) =>
  event["detail-type"] === "runlog.ResumeRun" ? event.detail.runId : event.detail.input.runId;

/**
 * What the function answers: what a resume did, how a recovery went (a sweep skips a run someone
 * else moved on, so recovery does not throw for it), or why a ResumeRun found nothing to do.
 */
type ResumeAnswer =
  | ReturnType<typeof resumeResultView>
  | SweepOutcome
  | { runId: string; resumed: false; reason: BenignReason };

/** A run being executed, cancelled or moved on by someone else: answered, never sent to the DLQ. */
const benignAnswer = (event: ResumeEvent, reason: BenignReason): ResumeAnswer => ({
  runId: runIdOf(event),
  resumed: false,
  reason,
});

/**
 * Who a ResumeRun event acts as, and that it may: the owner its sender's StartRun events give
 * their runs (eventPrincipal: the sender account's, or the `detail.owner` a trusted source names), as
 * a steering event acts. Another owner's run is answered as one that does not exist, as the HTTP
 * API answers it.
 */
async function eventResumer(
  deps: { store: { getHead(runId: string): Promise<{ owner?: Owner } | undefined> } },
  event: z.output<typeof ResumeRunEvent>,
): Promise<Principal> {
  const principal = eventPrincipal(event, (await awsDeps()).trustedEventSources);
  const { runId } = event.detail;
  const head = await deps.store.getHead(runId);
  if (!head || !mayAccess(principal, head.owner)) {
    throw new NotFoundError(`run ${runId} not found`, { runId });
  }
  return principal;
}

/**
 * Resumes runs: after an execution failed or timed out (under the sweeper's limits and backoff,
 * as it is automatic), or when a `runlog.ResumeRun` event asks for it (as a person would, no
 * limits; never with a `scripted:FILE` model). An execution that ended ABORTED without runlog
 * having stopped it (the console's StopExecution) is recorded as stopped outside runlog and left
 * `interrupted` for a person (lib/steps/outsideStop.ts); runlog's own stops (a cancel) rest as before.
 */
export const handler = controlHandler(
  "resume",
  Schema,
  async (deps, event): Promise<ResumeAnswer> => {
    if (event["detail-type"] === "runlog.ResumeRun") {
      const { runId, model, input, limits, modelSettings } = event.detail;
      checkEventModel(model);
      const resumer = await eventResumer(deps, event);
      return resumeResultView(
        await resumeRun(deps, {
          runId,
          by: RESUMED_BY.event,
          actor: resumer.id,
          // The event's id is the key of the message it carries: a redelivery (EventBridge, Lambda's
          // retries, a redrive) finds it in the log and answers what the first delivery did.
          idempotencyKey: event.id,
          ...defined({ model, input, limits, modelSettings }),
        }),
      );
    }
    const { detail } = event;
    if (detail.status === "ABORTED") {
      await recordOutsideStop(deps, {
        runId: detail.input.runId,
        generation: detail.input.generation,
        ...defined({ execution: detail.name ?? undefined, error: detail.error ?? undefined }),
        ...defined({ cause: detail.cause ?? undefined }),
      });
    }
    // A stopped run is rested `interrupted` there, not resumed (lib/steps/sweepCandidate.ts).
    return recoverRun(deps, detail.input.runId, AWS_SWEEP);
  },
  {
    keys: (event) => ({
      runId: runIdOf(event),
      ...(event["detail-type"] === "runlog.ResumeRun" ? {} : { generation: event.detail.input.generation }),
    }),
    answer: benignAnswer,
  },
);
