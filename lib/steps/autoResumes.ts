import { RESUMED_BY } from "../core/eventConstants.ts";
import type { AutoResumes } from "../ports/eventStore.ts";

/**
 * The head's automatic-resume record after a resume claims the run (written with the claim):
 * the sweeper's resume counts one more and notes when; a new user message (a send, a fork with
 * input) gives the request a fresh budget; any other resume (a person's, a handoff) keeps the
 * record as it is (undefined: the claim leaves it alone). `lastWriteAt` and `completing`: see
 * countedAutoResumes.
 */
export function autoResumesAfter(
  previous: AutoResumes | undefined,
  request: { by?: string | undefined; input?: string | undefined },
  now: number,
  lastWriteAt?: number,
  completing = false,
): AutoResumes | undefined {
  if (request.input !== undefined) return { count: 0 };
  if (request.by !== RESUMED_BY.sweeper) return undefined;
  const counted =
    lastWriteAt === undefined ? previous : countedAutoResumes(previous, lastWriteAt, completing);
  return { count: (counted?.count ?? 0) + 1, lastAt: now };
}

/**
 * The automatic resumes that happened, given when the log was last written. A sweeper's claim to
 * open a generation writes its `resumed` next: one newer than the log's last event never did (its
 * process died between the two), so it is not counted and sets no back-off. A claim that completes
 * a generation already opened (`completing`: the log ends at its opening) writes nothing by
 * design, so being newer than the log says nothing: it counts. Its execution may have run and died
 * before its first write (in its first model call, say), and a run that dies there every time must
 * reach the budget, not be resumed for ever.
 */
export function countedAutoResumes(
  record: AutoResumes | undefined,
  lastWriteAt: number,
  completing: boolean,
): AutoResumes | undefined {
  if (completing || record?.lastAt === undefined || record.lastAt <= lastWriteAt) return record;
  return { count: Math.max(0, record.count - 1) };
}

/**
 * Whether completing the generation `opener` opened is the sweeper finishing its own resume: the
 * opening was the sweeper's and no claim came after it (its claimer died before executing it).
 * That resume was counted when it was claimed: finishing it is the same resume, not another.
 */
export function finishesOwnResume(
  record: AutoResumes | undefined,
  opener: { type: string; by?: string | undefined; at: string },
): boolean {
  if (opener.type !== "resumed" || opener.by !== RESUMED_BY.sweeper) return false;
  return record?.lastAt === undefined || record.lastAt <= Date.parse(opener.at);
}

/** When the next automatic resume is due (epoch ms): the wait doubles with each one, up to a cap. */
export function nextAutoResumeAt(
  record: AutoResumes | undefined,
  policy: { backoffMs: number; maxBackoffMs: number },
): number | undefined {
  if (!record || record.count === 0 || record.lastAt === undefined) return undefined;
  return record.lastAt + Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (record.count - 1));
}
