import { CorruptEventError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { StepDeps, StepInput } from "./deps.ts";
import { letRest } from "./lease.ts";
import { loadRun } from "./logReads.ts";
import { outcomeOfFacts, type RunOutcome } from "./outcome.ts";
import { markPaused } from "./restMarkers.ts";
import { answerParent } from "./subagents/answer.ts";
import { lookUpChildren } from "./subagents/lookUp.ts";

export interface FinishInput extends StepInput {
  /** The lease owner this execution runs under. */
  owner: string;
}

/** The Finish task: record the status the run rests in and give up this execution's lease. */
export async function finish(deps: StepDeps, input: FinishInput): Promise<RunOutcome> {
  let events: readonly RunEvent[];
  try {
    events = await loadRun(deps, input.runId);
  } catch (error) {
    if (!(error instanceof CorruptEventError)) throw error;
    // A record that cannot be read (the step before failed on it too): the run rests `malformed`
    // if the lease is still this execution's, so readers and the next message know (logReads.ts).
    await letRest(deps, input.runId, input.owner, { status: "malformed" });
    return { runId: input.runId, status: "malformed", output: null };
  }
  // The last seq, not the count of events: they differ in a log with a gap (a malformed one).
  const lastSeq = events.at(-1)!.seq;
  const facts = deps.logs.factsOf(input.runId, events);
  const outcome = outcomeOfFacts(input.runId, events, facts);
  // A superseded execution leaves the head to the generation that owns the run. So does one whose
  // lease is not its own any more (letRest writes nothing then): a retry of this Finish that
  // released it already, or a resumer that took over a lease this execution let lapse. A damaged
  // log's facts stop at the damage, its generation with them: its execution rests the run
  // `malformed` if the lease is still its own, so listings, resume-point and the next message
  // know (logReads.ts readTailChecked) instead of a head left running.
  if (facts.generation === input.generation || facts.problem !== undefined) {
    // The pause is a fact of the log (a lifecycle event is derived from it), written before the
    // head says so: a crash between the two leaves a retry, or the sweeper, to rest it again.
    // The head records the log's end: the marker's seq when one was written.
    const marked =
      outcome.status === "paused"
        ? await markPaused(deps, input.runId, { generation: input.generation })
        : undefined;
    const control = deps.control?.();
    // A sub-agent's child answers its parent's call before it rests: a crash before that leaves
    // it `running` for the sweep, which answers then (sweep.ts).
    if (control) await answerParent(control, events[0]!, { events });
    // The head names the agent in charge: after a transfer, the one the run went on under.
    await letRest(deps, input.runId, input.owner, {
      status: outcome.status,
      lastSeq: marked ?? lastSeq,
      agent: facts.agent,
    });
    // Resting `waiting`, the run looks its children up: one that ended while this execution was
    // finishing could not resume it (its lease was held), so that resume is made here.
    if (control && outcome.status === "waiting") await lookUpChildren(control, input.runId);
  }
  return outcome;
}
