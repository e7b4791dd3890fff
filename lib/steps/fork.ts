import type { ResumePoint } from "../core/classify.ts";
import { ConflictError, IdTakenError, InvalidInputError } from "../core/errors.ts";
import {
  canonicalJson,
  type NewEvent,
  RESUMED_BY,
  type RunEvent,
  type RunStarted,
  stamp,
} from "../core/events.ts";
import { validateRunId } from "../core/ids.ts";
import { readLog } from "../core/log.ts";
import { assertSameStart } from "../core/sameStart.ts";
import { restingStatus } from "../core/status.ts";
import { type EventStore, MAX_EVENT_BYTES } from "../ports/eventStore.ts";
import type { Ids } from "../ports/runtime.ts";
import { advance, plan } from "./advance.ts";
import type { ControlDeps } from "./deps.ts";
import { leaseFor } from "./lease.ts";
import { nextAction } from "./nextAction.ts";
import type { ResumeResult } from "./resume.ts";
import { expireRun } from "./retention.ts";
import { loadRun } from "./writeNext.ts";

export interface ForkRequest {
  runId: string;
  /** Copy the log up to and including this seq. @default the whole log */
  atSeq?: number;
  /** Continue the fork with this user message. */
  input?: string;
  /** The new run's id. @default a generated one */
  forkId?: string;
}

export interface ForkResult {
  forkId: string;
  /** What the fork did after the copy: resumed, or rests as an identical copy. */
  resume: ResumeResult;
}

/** Parallel conditional puts while copying; each seq is still written at most once. */
const COPY_CONCURRENCY = 16;

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
  const atSeq = request.atSeq ?? parent.length;
  if (!Number.isInteger(atSeq) || atSeq < 1 || atSeq > parent.length) {
    throw new InvalidInputError(
      `atSeq must be a whole number from 1 to ${parent.length} (the last seq of run ${request.runId}), got ${atSeq}`,
    );
  }
  // A fork copies the log: of a malformed one, only what comes before the damage.
  const problem = readLog(parent).problem;
  if (problem && problem.seq <= atSeq) {
    throw new ConflictError(
      `run ${request.runId} is malformed at seq ${problem.seq} (${problem.message}); fork it at a seq before that`,
    );
  }
  if (request.input !== undefined && request.input.trim() === "")
    throw new InvalidInputError("input must not be empty");
  // Checked before the copy: once the fork exists, an input the store refuses would leave it half done.
  const inputBytes = Buffer.byteLength(JSON.stringify(request.input ?? ""));
  if (inputBytes > MAX_EVENT_BYTES - 1024) {
    throw new InvalidInputError(
      `input is ${inputBytes} bytes as stored, over the ${MAX_EVENT_BYTES - 1024} a run's event can hold: shorten the input`,
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
  const first: RunStarted = { ...origin, runId: forkId, parent: { runId: request.runId, seq: atSeq } };
  const events = [first, ...copied.slice(1)];
  const facts = readLog(events);
  const point = plan(facts, request.input);
  // The fork goes on from its first step when it can: check its model before anything is written.
  if (point.resumable && facts.model !== undefined) deps.models(facts.model);
  if (!point.resumable) {
    // An identical copy of a run that rests (completed, paused …): it rests the same way.
    await copyEvents(deps.store, first, copied.slice(1));
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
    await deps.store.setStatus(forkId, status, events.length);
    await expireRun(deps, forkId, status);
    return { forkId, resume: { resumed: false, runId: forkId, classification: point } };
  }

  // The copy and the fork's opening `resumed` (carrying its input) before the run exists: until
  // `run_started` and the head are written the fork is invisible, and once they are it is whole,
  // its input included, so nobody (the sweeper included) can go on with it without that input.
  const generation = facts.generation + 1;
  await copyEvents(deps.store, first, [
    ...copied.slice(1),
    openingOf(deps, events, generation, point, { input: request.input, model: facts.model }),
  ]);
  deps.faults.reached("fork:after-copy");
  const owner = deps.orchestrator.leaseOwnerFor({ runId: forkId, generation, createdAt: first.at });
  const { created } = await deps.store.createRun(first, leaseFor(deps, owner));
  if (created) deps.logs.appended(forkId, first);
  if (!created) {
    // The same fork made before (anything else was refused by the copy): complete what it began.
    return {
      forkId,
      resume: await advance(deps, { runId: forkId, by: RESUMED_BY.person, onlyOpened: true }),
    };
  }
  deps.faults.reached("control:after-claim");
  deps.faults.reached("control:after-append");
  deps.faults.reached("control:before-execute");
  await deps.orchestrator.execute({ runId: forkId, generation, next: nextAction(point, true), owner });
  return { forkId, resume: { resumed: true, runId: forkId, generation, kind: point.kind, opened: true } };
}

/** The `resumed` event a fork that goes on opens with, right after the copy. */
function openingOf(
  deps: ControlDeps,
  events: readonly RunEvent[],
  generation: number,
  point: ResumePoint,
  { input, model }: { input: string | undefined; model: string | undefined },
): RunEvent {
  const opening: NewEvent = {
    type: "resumed",
    generation,
    kind: point.kind,
    description: point.description,
    ...(model === undefined ? {} : { model }),
    ...(input === undefined ? {} : { input }),
    by: RESUMED_BY.person,
  };
  return stamp(opening, events.length + 1, deps.clock.now(), generation);
}

/**
 * Copy the parent's events into the fork. A retried fork finds what its first attempt copied:
 * the same events stay (read back, their keys may come in another order, hence the canonical
 * form), anything else there means the fork id belongs to another run, and nothing is written
 * into it: its first event is checked before anything is copied.
 */
async function copyEvents(store: EventStore, first: RunStarted, events: readonly RunEvent[]): Promise<void> {
  const forkId = first.runId;
  const copied = new Map((await store.read(forkId)).map((event) => [event.seq, event]));
  // The fork's own opening `resumed` (the last event) is written anew by each attempt: its time differs.
  const timeless = (event: RunEvent) => (event.type === "resumed" ? { ...event, at: "" } : event);
  const same = (event: RunEvent, stored: RunEvent | undefined) =>
    stored !== undefined && canonicalJson(timeless(stored)) === canonicalJson(timeless(event));
  if (copied.has(1)) assertSameStart(first, copied.get(1), "fork id");
  const taken = (seq: number, options?: { cause?: unknown }) => {
    const why = `its event at seq ${seq} differs from run ${first.parent?.runId}'s`;
    return new IdTakenError(forkId, [why], `fork id ${forkId} is taken by a different run (${why})`, options);
  };
  for (const event of events) {
    const stored = copied.get(event.seq);
    if (stored && !same(event, stored)) throw taken(event.seq);
  }
  const missing = events.filter((event) => !copied.has(event.seq));
  for (let i = 0; i < missing.length; i += COPY_CONCURRENCY) {
    await Promise.all(
      missing.slice(i, i + COPY_CONCURRENCY).map(async (event) => {
        try {
          await store.append(forkId, event);
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
          // A second fork with this id, at the same moment: the same copy is fine, another is not.
          const [stored] = await store.read(forkId, event.seq - 1);
          if (!same(event, stored)) throw taken(event.seq, { cause: error });
        }
      }),
    );
  }
}
