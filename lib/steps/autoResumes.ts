import { RESUMED_BY } from "../core/eventConstants.ts";
import type { AutoResumes } from "../ports/eventStore.ts";

/**
 * The head's automatic-resume record after a resume claims the run (written with the claim):
 * the sweeper's resume counts one more and notes when; a new user message (a send, a fork with
 * input) gives the request a fresh budget; any other resume (a person's, a handoff) keeps the
 * record as it is (undefined: the claim leaves it alone). Every claim of the sweeper's counts,
 * whether or not its execution went on to write anything: one that died before its first write
 * (in its first model call, say) may have cost what any resume does, and a run that dies there
 * every time must reach the budget, not be resumed for ever.
 */
export function autoResumesAfter(
  previous: AutoResumes | undefined,
  request: { by?: string | undefined; input?: string | undefined },
  now: number,
): AutoResumes | undefined {
  if (request.input !== undefined) return { count: 0 };
  if (request.by !== RESUMED_BY.sweeper) return undefined;
  return { count: (previous?.count ?? 0) + 1, lastAt: now };
}

/** When the next automatic resume is due (epoch ms): the wait doubles with each one, up to a cap. */
export function nextAutoResumeAt(
  record: AutoResumes | undefined,
  policy: { backoffMs: number; maxBackoffMs: number },
): number | undefined {
  if (!record || record.count === 0 || record.lastAt === undefined) return undefined;
  return record.lastAt + Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (record.count - 1));
}
