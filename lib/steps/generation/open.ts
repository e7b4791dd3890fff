import { assertNever } from "../../core/assertNever.ts";
import type { ControlDeps } from "../deps.ts";
import { create } from "./create.ts";
import { move } from "./move.ts";
import type { Opening, Outcome } from "./opening.ts";
import { replanning } from "./replan.ts";

/**
 * The one way a run gets a generation to execute: open it (create the run, or append `resumed`
 * with everything the request carries) under a lease taken first, and make sure the execution of
 * that generation runs, under its deterministic name. Idempotent at every point: a request that
 * finds the generation it would open already opened by an equal request (the log ends at that
 * `resumed`, or at `run_started`) and not running does not open another; it starts that
 * generation's execution. So a crash or a failed start after any write is completed by retrying
 * the same request, or by the sweeper, with nothing lost and nothing done twice.
 */
export async function openGeneration(deps: ControlDeps, opening: Opening): Promise<Outcome> {
  switch (opening.kind) {
    case "start":
    case "fork":
      return create(deps, opening);
    case "resume":
    case "send":
    case "decide":
    case "sweep":
    case "handoff":
      return replanning((mayReplan) => move(deps, opening, mayReplan));
    default:
      return assertNever(opening);
  }
}
