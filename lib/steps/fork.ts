import { ConflictError, IdTakenError, InvalidInputError } from "../core/errors.ts";
import { RESUMED_BY } from "../core/eventConstants.ts";
import type { RunStarted } from "../core/events.ts";
import { validateRunId } from "../core/ids.ts";
import { readLog } from "../core/logReader.ts";
import type { ModelSettings } from "../core/modelSettings.ts";
import { restingStatus } from "../core/status.ts";
import { stamp } from "../core/storedEvents.ts";
import { jsonBytes } from "../core/utf8.ts";
import { MAX_EVENT_BYTES } from "../ports/eventStore.ts";
import type { Ids } from "../ports/runtime.ts";
import type { ControlDeps } from "./deps.ts";
import { copyEvents } from "./forkCopy.ts";
import { openGeneration } from "./generation/open.ts";
import { type ResumeResult, resumeResult } from "./generation/outcome.ts";
import { carriedOut, plan, resumedEvent } from "./generation/plan.ts";
import { loadRun } from "./logReads.ts";
import { settingsAsked } from "./modelSettingsAsked.ts";
import { withinOwnerCap } from "./ownerCap.ts";
import { expireRun } from "./retention.ts";
import { ownForkCopy } from "./subagents/forked.ts";

export interface ForkRequest {
  runId: string;
  /** Copy the log up to and including this seq. @default the whole log */
  atSeq?: number;
  /** Continue the fork with this user message. */
  input?: string;
  /** A model spec the fork goes on with instead of the run's (another provider's included). @default the run's */
  model?: string;
  /** The new run's id. @default a generated one */
  forkId?: string;
  /**
   * The caller's key for this fork, recorded on the fork's `run_started`. The API derives the fork's
   * id from it when none is given, so the same key again is the same fork (and a different fork
   * under that id is the key reused). @default none
   */
  idempotencyKey?: string;
  /**
   * Model settings the fork goes on with, replacing the parent's named (recorded on the `resumed`
   * that opens the fork), as a resume may. @default the parent's recorded settings
   */
  modelSettings?: ModelSettings;
}

export interface ForkResult {
  forkId: string;
  /** What the fork did after the copy: resumed, or rests as an identical copy. */
  resume: ResumeResult;
}

/**
 * Copy a run's log up to `atSeq` into a new run with provenance, never
 * touching the parent. The fork goes on like any log: resumed if it can be,
 * continued with `input` if given, or left as an identical copy that calls no
 * model. The copy, with the `resumed` that opens the fork's first generation,
 * is written before the fork's `run_started`, so until the fork exists it is
 * whole. The same fork retried (same id, source, seq and input) at any point
 * converges on the same items and completes what the first attempt began;
 * another fork under a taken id is an IdTakenError.
 */
export async function forkRun(deps: ControlDeps & { ids: Ids }, request: ForkRequest): Promise<ForkResult> {
  const parent = await loadRun(deps, validateRunId(request.runId));
  // The last seq, not the count of events: a log with a gap has fewer events than seqs.
  const lastSeq = parent.at(-1)!.seq;
  const atSeq = request.atSeq ?? lastSeq;
  if (!Number.isInteger(atSeq) || atSeq < 1 || atSeq > lastSeq) {
    throw new InvalidInputError(
      `atSeq must be a whole number from 1 to ${lastSeq} (the last seq of run ${request.runId}), got ${atSeq}`,
      { field: "atSeq" },
    );
  }
  // A fork copies the log: of a malformed one, only what comes before the damage.
  const problem = readLog(parent).problem;
  if (problem && problem.seq <= atSeq) {
    throw new ConflictError(
      `run ${request.runId} is malformed at seq ${problem.seq} (${problem.message}); fork it at a seq before that`,
      { runId: request.runId, seq: problem.seq },
    );
  }
  if (request.input !== undefined && request.input.trim() === "")
    throw new InvalidInputError("input must not be empty", { field: "input" });
  // Checked before the copy: once the fork exists, an input the store refuses would leave it half done.
  const inputBytes = jsonBytes(request.input ?? "");
  if (inputBytes > MAX_EVENT_BYTES - 1024) {
    throw new InvalidInputError(
      `input is ${inputBytes} bytes as stored, over the ${MAX_EVENT_BYTES - 1024} a run's event can hold: shorten the input`,
      { field: "input" },
    );
  }
  const forkId = request.forkId === undefined ? deps.ids.runId() : validateRunId(request.forkId, "fork id");
  if (forkId === request.runId) {
    const why = "the run being forked";
    throw new IdTakenError(
      forkId,
      [why],
      `fork id ${forkId} is taken by ${why}: a fork needs an id of its own`,
    );
  }

  // A cancel belongs to the parent's story; the fork starts free of it.
  const copied = parent.slice(0, atSeq).filter((event) => event.type !== "cancelled");
  const origin = copied[0] as RunStarted;
  // The parent's own key (a fork of a fork) was that fork's request, not this one.
  const { idempotencyKey: _, ...originFields } = origin;
  const first: RunStarted = {
    ...originFields,
    runId: forkId,
    // The fork is created now: its head, listing and executions carry its own time, not its parent's.
    at: deps.clock.now().toISOString(),
    parent: { runId: request.runId, seq: atSeq },
    ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
  };
  // Sub-agent calls under way at the cut are the parent's: the fork answers them as interrupted.
  const events = ownForkCopy([first, ...copied.slice(1)], request.runId, atSeq);
  const facts = readLog(events);
  const point = plan(facts, request.input);
  // The fork goes on from its first step when it can: check its model before anything is written.
  const model = request.model ?? facts.model;
  if (point.resumable && model !== undefined) deps.models(model);
  const modelSettings = settingsAsked(deps, facts, request.modelSettings, request.model);
  if (modelSettings !== undefined && !point.resumable) {
    throw new InvalidInputError(
      `modelSettings: the fork of run ${request.runId} at seq ${atSeq} does not go on (${point.reason}), so no model is called; give input to continue it`,
      { field: "modelSettings" },
    );
  }
  if (!point.resumable) {
    // A copy that rests opens no generation, so nothing would record the model asked for.
    if (request.model !== undefined) {
      throw new InvalidInputError(
        `model: run ${request.runId} at seq ${atSeq} rests (${point.reason}), so its fork would not go on with ${request.model}; give input, or fork at an earlier seq`,
        { field: "model" },
      );
    }
    // An identical copy of a run that rests (completed, paused …): it rests the same way.
    await copyEvents(deps.store, first, events.slice(1));
    deps.faults.reached("fork:after-copy");
    const { created } = await deps.store.createRun(first);
    if (created) deps.logs.appended(forkId, first);
    // The same copy made before and gone on since (a message sent to it): not this request's.
    const beyond = created ? [] : await deps.store.read(forkId, events.length);
    if (beyond.length > 0) {
      const why = `it went on past the copy of run ${request.runId} at seq ${atSeq}`;
      throw new IdTakenError(forkId, [why], `fork id ${forkId} is taken: ${why}`);
    }
    const status = restingStatus(events, point);
    // The head names the agent in charge at the fork point (a transfer's, when the copy holds one).
    await deps.store.setStatus(forkId, status, events.length, facts.agent);
    await expireRun(deps, forkId, status);
    return { forkId, resume: { resumed: false, runId: forkId, classification: point } };
  }

  // The copy and the fork's opening `resumed` (carrying its input) before the run exists: until
  // `run_started` and the head are written the fork is invisible, and once they are it is whole,
  // its input included, so nobody (the sweeper included) can go on with it without that input.
  // The same fork made before (anything else was refused by the copy) completes what it began.
  const generation = facts.generation + 1;
  // A fork that goes on is one more running run of its owner; the same fork retried is not.
  if (deps.maxRunningPerOwner !== undefined && (await deps.store.getHead(forkId)) === undefined)
    await withinOwnerCap(deps, first.owner);
  // The fork resumes with the tools of the agent that asked for the copied batch.
  const agent = facts.batch?.agent ?? facts.agent;
  const described = agent === undefined ? point : carriedOut(point, deps.agents(agent).tools);
  const opening = stamp(
    resumedEvent(described, {
      generation,
      by: RESUMED_BY.fork,
      input: request.input,
      model,
      modelSettings,
    }),
    events.length + 1,
    deps.clock.now(),
    generation,
  );
  const outcome = await openGeneration(deps, {
    kind: "fork",
    first,
    copy: [...events.slice(1), opening],
    generation,
    point,
  });
  return { forkId, resume: resumeResult(outcome) };
}
