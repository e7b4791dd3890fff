import { classify } from "../core/classify.ts";
import { InvalidInputError, NotFoundError } from "../core/errors.ts";
import { RESUMED_BY } from "../core/eventConstants.ts";
import type { ForkParent } from "../core/eventFields.ts";
import type { RunEvent } from "../core/events.ts";
import { inputsOf } from "../core/replay.ts";
import type { RunReads } from "./runReads.ts";

/**
 * A fork given its input where its copy did not rest (mid-turn: a batch of tool calls half run, a
 * model call not made yet). Replayed from its first input, the replay would be given that input
 * only once it had answered the first message, somewhere else in its story: such a fork is
 * replayed from the same point instead, as a fork of it (lib/api/replay.ts). A fork given its
 * input where its copy rests (a final answer) got it as a send would give it, and is replayed from
 * its first input like any run.
 */
export interface MidTurnFork {
  /** The run and seq it was copied from. */
  parent: ForkParent;
  /** How many of its events are the copy: a replay forks it at this seq. */
  copied: number;
  /** The input its fork went on with. */
  input: string;
  /** The inputs it was given after that, in order. */
  later: string[];
}

/** The fork point of a recorded run that is a {@link MidTurnFork}; undefined for any other run. */
export async function midTurnForkOf(
  reads: RunReads,
  runId: string,
  events: readonly RunEvent[],
): Promise<MidTurnFork | undefined> {
  const started = events[0];
  const parent = started?.type === "run_started" ? started.parent : undefined;
  if (parent === undefined || !("seq" in parent)) return undefined;
  const copied = await copiedLength(reads, runId, events, parent);
  const opening = isForkOpening(events[copied]);
  if (opening?.input === undefined) return undefined;
  if (!classify(events.slice(0, copied)).resumable) return undefined;
  return { parent, copied, input: opening.input, later: inputsOf(events.slice(copied + 1)) };
}

/** The `resumed` a fork writes after its copy, which opens the fork's first generation (lib/steps/fork.ts). */
const isForkOpening = (event: RunEvent | undefined) =>
  event?.type === "resumed" && event.by === RESUMED_BY.fork ? event : undefined;

/**
 * How many events the fork's copy is: its parent's events up to `parent.seq`, less the cancels a
 * fork leaves out. The opening right after a whole copy says so; otherwise, when the log holds a
 * fork's opening earlier (its own, after a copy that left out cancels, or its parent's, copied), the
 * parent's log says how many cancels were left out.
 */
async function copiedLength(
  reads: RunReads,
  runId: string,
  events: readonly RunEvent[],
  parent: ForkParent,
): Promise<number> {
  if (isForkOpening(events[parent.seq])) return parent.seq;
  if (!events.slice(0, parent.seq).some(isForkOpening)) return parent.seq;
  let source: RunEvent[];
  try {
    source = await reads.events(parent.runId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new InvalidInputError(
      `run ${runId} is a fork of run ${parent.runId}, which is gone: where its copy ends cannot be told, so it cannot be replayed`,
      { field: "runIds", runId, cause: error },
    );
  }
  return parent.seq - source.filter((e) => e.seq <= parent.seq && e.type === "cancelled").length;
}
