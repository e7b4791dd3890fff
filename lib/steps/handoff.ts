import type { ControlDeps, StepInput } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";

export interface HandoffInput extends StepInput {
  /** The lease owner the handing-over execution runs under. */
  owner: string;
}

export type HandoffResult = { handedOff: true; generation: number } | { handedOff: false; reason: string };

/**
 * The Handoff task: this execution has done its share of steps, so the run
 * goes on in a new execution of the next generation, the way `runlog resume`
 * continues a run (lib/steps/generation/): the lease passes from this
 * execution's owner to the new one's, a `resumed` event by `handoff` fences
 * this generation, and the new execution starts. Safe to retry at any point:
 * a retry finds its own lease claim or its own `resumed` event and goes on
 * from there. When there is nothing to hand over (the run ended meanwhile),
 * the lease comes back to this execution, whose Finish lets the run rest.
 */
export async function handOff(deps: ControlDeps, input: HandoffInput): Promise<HandoffResult> {
  const { runId, owner, generation } = input;
  const outcome = await openGeneration(deps, { kind: "handoff", runId, owner, generation });
  if (outcome.kind === "not_resumable") return { handedOff: false, reason: outcome.classification.reason };
  return { handedOff: true, generation: outcome.generation };
}
