import { LeaseHeldError } from "../../core/errors.ts";
import type { LogFacts } from "../../core/log.ts";
import type { Outcome } from "./opening.ts";

/** How many times a request decides again on a log that grew while it was deciding. */
const REPLANS = 3;

/** One attempt's end: an outcome, or the log changed under it and the request decides again. */
export type Attempt = Outcome | { kind: "replan" };

/** Attempt until an attempt comes to an outcome; the last REPLANS may not replan (`mayReplan`). */
export async function replanning(attempt: (mayReplan: boolean) => Promise<Attempt>): Promise<Outcome> {
  for (let replans = REPLANS; ; replans--) {
    const outcome = await attempt(replans > 0);
    if (outcome.kind !== "replan") return outcome;
  }
}

/** Decide again, or, with no replans left, refuse: the log keeps moving under another executor. */
export function replanOrRefuse(runId: string, facts: LogFacts, mayReplan: boolean): Attempt {
  if (mayReplan) return { kind: "replan" };
  throw new LeaseHeldError(`run ${runId} keeps moving on under another executor; not resuming it`, {
    runId,
    generation: facts.generation,
  });
}
