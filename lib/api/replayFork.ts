import { classify } from "../core/classify.ts";
import { RESUMED_BY } from "../core/eventConstants.ts";
import type { RunEvent } from "../core/events.ts";
import { inputsOf } from "../core/replay.ts";

/**
 * A run whose log holds an input a fork was given where its copy did not rest (mid-turn: a batch of
 * tool calls half run, a model call not made yet): the fork's own, or one its log copied from the
 * run it forks (a fork of such a fork). Replayed from its first input, the replay would be given
 * that input only once it had answered the first message, somewhere else in its story: such a run
 * is replayed from the same point instead, as a fork of it (lib/api/replay.ts). A fork given its
 * input where its copy rests (a final answer) got it as a send would give it, and is replayed from
 * its first input like any run.
 */
export interface MidTurnFork {
  /** How many events come before that input: a replay forks the run at this seq (its copy, byte for byte). */
  copied: number;
  /** The input given there. */
  input: string;
  /** The inputs given after it, in order. */
  later: string[];
}

/**
 * The latest point of a recorded run's log where a fork was given its input mid-turn; undefined
 * when there is none. Every fork's opening (its own and those of the runs its copy came from) is
 * where a copy ended, since a copy leaves nothing out before one: so the events before it are that
 * copy, and the events up to the latest such point are what a replay must start from. Read from
 * the log alone: a run whose parent is gone replays all the same.
 */
export function midTurnForkOf(events: readonly RunEvent[]): MidTurnFork | undefined {
  for (let at = events.length - 1; at > 0; at--) {
    const opening = isForkOpening(events[at]);
    if (opening?.input === undefined) continue;
    if (!classify(events.slice(0, at)).resumable) continue;
    return { copied: at, input: opening.input, later: inputsOf(events.slice(at + 1)) };
  }
  return undefined;
}

/** The `resumed` a fork writes after its copy, which opens the fork's first generation (lib/steps/fork.ts). */
const isForkOpening = (event: RunEvent | undefined) =>
  event?.type === "resumed" && event.by === RESUMED_BY.fork ? event : undefined;
