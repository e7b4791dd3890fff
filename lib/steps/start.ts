import { InvalidInputError } from "../core/errors.ts";
import { stamp } from "../core/events.ts";
import { validateRunId } from "../core/ids.ts";
import type { Owner } from "../core/principal.ts";
import type { Ids } from "../ports/runtime.ts";
import type { ControlDeps } from "./deps.ts";
import { openGeneration } from "./generation/open.ts";

export interface StartRequest {
  agent: string;
  input: string;
  /** A model spec; the agent's default when absent. */
  model?: string;
  /** A caller-chosen id makes the start idempotent. */
  runId?: string;
  /** Whose run it is, recorded in `run_started`. @default none (an admin's only) */
  owner?: Owner;
}

export interface StartResult {
  runId: string;
  /** False when a run with this id and the same start already existed (nothing was executed). */
  created: boolean;
}

/**
 * Start a run: check the agent and model exist before anything is written,
 * write `run_started` (holding the lease), then execute generation 1. The
 * same start retried (a caller-chosen id, an event delivered again) after a
 * crash or a failed start executes generation 1 if it never ran; once the run
 * has gone on it starts nothing.
 */
export async function startRun(
  deps: ControlDeps & { ids: Ids },
  request: StartRequest,
): Promise<StartResult> {
  if (typeof request.input !== "string" || request.input.trim() === "") {
    throw new InvalidInputError("input must be a non-empty string");
  }
  const agent = deps.agents(request.agent);
  const modelSpec = request.model ?? agent.defaultModel;
  deps.models(modelSpec);
  const runId = request.runId === undefined ? deps.ids.runId() : validateRunId(request.runId);

  const first = stamp(
    {
      type: "run_started",
      runId,
      agent: agent.name,
      model: modelSpec,
      input: request.input,
      ...(request.owner === undefined ? {} : { owner: request.owner }),
    },
    1,
    deps.clock.now(),
  );
  if (first.type !== "run_started") throw new Error("unreachable");
  const outcome = await openGeneration(deps, { kind: "start", first });
  return { runId, created: outcome.kind === "created" };
}
