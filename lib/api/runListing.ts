import { classifyFacts } from "../core/classify.ts";
import { CorruptEventError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { LogView } from "../core/log.ts";
import { restingStatusOf, SETTLED_BY_LOG } from "../core/status.ts";
import type { RunHead } from "../ports/eventStore.ts";
import type { ReadDeps } from "../steps/deps.ts";
import { leaseIsLive } from "../steps/liveness.ts";
import { readTail, viewFacts } from "../steps/logReads.ts";

/**
 * A head as a listing shows it. Two kinds lag their log: a `running` head (see asLogShows), and a
 * `paused` one, which a person's decision leaving other calls waiting appends to without a head
 * write: it shows its log's last seq and time, read from the last event alone.
 */
export async function asListed(deps: ReadDeps, head: RunHead): Promise<RunHead> {
  if (head.status === "running") return asLogShows(deps, head);
  if (head.status !== "paused") return head;
  let last: RunEvent | undefined;
  try {
    last = (await deps.store.readBack(head.runId, () => true)).at(-1);
  } catch (error) {
    if (error instanceof CorruptEventError) return { ...head, status: "malformed" };
    throw error;
  }
  return last === undefined ? head : uptoLast(head, last);
}

/** A `running` head brought up to its log's tail: last seq, last activity, agent in charge (when the tail shows it), and status if nobody executes it. */
async function asLogShows(deps: ReadDeps, head: RunHead): Promise<RunHead> {
  let tail: LogView;
  try {
    tail = await readTail(deps, head.runId);
  } catch (error) {
    // As resume-point answers it: a log that cannot be read rests as malformed.
    if (error instanceof CorruptEventError) return { ...head, status: "malformed" };
    throw error;
  }
  const facts = viewFacts(deps, head.runId, tail);
  // A transfer while it runs: the head learns the agent when the run rests, the tail may know it now.
  const shown = { ...uptoLast(head, tail.events.at(-1)!), agent: facts.agent ?? head.agent };
  const status = restingStatusOf(facts, classifyFacts(facts));
  // As outcome() gives it: what the log settles shows at once, though its execution holds the
  // lease a moment more; anything else is running while its executor lives.
  if (SETTLED_BY_LOG.has(status) || !(await leaseIsLive(deps, head.lease))) return { ...shown, status };
  return shown;
}

/** A head that lags its log brought up to the log's last event: its seq and, if later, its time. */
function uptoLast(head: RunHead, last: RunEvent): RunHead {
  const updatedAt = Date.parse(last.at) > Date.parse(head.updatedAt) ? last.at : head.updatedAt;
  return { ...head, lastSeq: Math.max(head.lastSeq, last.seq), updatedAt };
}
