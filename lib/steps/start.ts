import { agentLimits, assertPriced, checkLimits, type Limits, startLimits } from "../core/budget.ts";
import { InvalidInputError } from "../core/errors.ts";
import type { CallParent } from "../core/eventFields.ts";
import { validateRunId } from "../core/ids.ts";
import { checkMetadata, type Metadata } from "../core/metadata.ts";
import type { ModelSettings } from "../core/modelSettings.ts";
import type { Owner } from "../core/principal.ts";
import { stamp } from "../core/storedEvents.ts";
import type { Ids } from "../ports/runtime.ts";
import type { ControlDeps } from "./deps.ts";
import { assertNoForkCopy } from "./forkCopy.ts";
import { openGeneration } from "./generation/open.ts";
import { discoverMcpTools } from "./mcpTools.ts";
import { startSettings } from "./modelSettingsAsked.ts";
import { withinOwnerCap } from "./ownerCap.ts";

export interface StartRequest {
  agent: string;
  input: string;
  /** A model spec; the agent's default when absent. */
  model?: string;
  /** A caller-chosen id makes the start idempotent. */
  runId?: string;
  /** Whose the run is, recorded in `run_started`; counted against the per-owner cap. */
  owner?: Owner;
  /** The caller's own JSON object, stored in `run_started` and echoed on every lifecycle event. */
  metadata?: Metadata;
  /** Lower limits than the agent's for this run; above the agent's is an InvalidInputError. @default the agent's */
  limits?: Limits;
  /**
   * Model settings for this run, replacing the agent's named (lib/core/modelSettings.ts): never
   * more output tokens than the agent allows; one the model cannot honour is an InvalidInputError
   * naming it. Recorded in `run_started`. @default the agent's
   */
  modelSettings?: ModelSettings;
  /** The tool call this run answers, when it is a sub-agent's child run (lib/steps/subagents/). @default none */
  parent?: CallParent;
}

export interface StartResult {
  runId: string;
  /** False when a run with this id and the same start already existed (nothing was executed). */
  created: boolean;
}

/**
 * Start a run: check the agent and model exist before anything is written, list the tools of the
 * agent's MCP servers, write `run_started` (holding the lease, recording those tools), then execute generation 1. The
 * same start retried (a caller-chosen id, an event delivered again) after a
 * crash or a failed start executes generation 1 if it never ran; once the run
 * has gone on it starts nothing.
 */
export async function startRun(
  deps: ControlDeps & { ids: Ids },
  request: StartRequest,
): Promise<StartResult> {
  if (typeof request.input !== "string" || request.input.trim() === "") {
    throw new InvalidInputError("input must be a non-empty string", { field: "input" });
  }
  const metadata = request.metadata === undefined ? undefined : checkMetadata(request.metadata);
  const agent = deps.agents(request.agent);
  const modelSpec = request.model ?? agent.defaultModel;
  const modelSettings = startSettings(agent, deps.models(modelSpec), request.modelSettings);
  const asked = request.limits === undefined ? undefined : checkLimits(request.limits);
  const limits = startLimits(agentLimits(agent.limits), asked);
  // Blame what the caller gave: the model it named, else the cost limit it asked for.
  const blamed =
    request.model === undefined && asked?.maxCostUsd !== undefined ? "limits.maxCostUsd" : "model";
  assertPriced(limits, deps.prices, modelSpec, blamed);
  const runId = request.runId === undefined ? deps.ids.runId() : validateRunId(request.runId);
  // A caller's id may name a run already (a retried start): its head, read once, says so. A new id has none.
  const exists = request.runId !== undefined && (await deps.store.getHead(runId)) !== undefined;
  if (request.owner && !exists) await withinOwnerCap(deps, request.owner);
  if (request.runId !== undefined && !exists) await assertNoForkCopy(deps.store, runId);
  // Listed now and recorded in `run_started`: the run goes by this list all its life. A retried
  // start of a run that exists keeps the list it recorded, so it asks no server (one may be down).
  const mcpTools = exists ? undefined : await discoverMcpTools(deps, agent);

  const first = stamp(
    {
      type: "run_started",
      runId,
      agent: agent.name,
      model: modelSpec,
      input: request.input,
      ...(request.parent ? { parent: { runId: request.parent.runId, callId: request.parent.callId } } : {}),
      ...(request.owner ? { owner: request.owner } : {}),
      ...(metadata === undefined ? {} : { metadata }),
      limits,
      ...(modelSettings === undefined ? {} : { modelSettings }),
      ...(mcpTools === undefined ? {} : { mcpTools }),
    },
    1,
    deps.clock.now(),
  );
  if (first.type !== "run_started") throw new Error("unreachable");
  const outcome = await openGeneration(deps, { kind: "start", first });
  return { runId, created: outcome.kind === "created" };
}
