import { expiringApprovals } from "../../core/approvalExpiry.ts";
import { CorruptEventError } from "../../core/errors.ts";
import type { RunEvent } from "../../core/events.ts";
import type { ControlDeps } from "../../steps/deps.ts";
import { expireApprovals } from "../../steps/expireApprovals.ts";
import { readTail, viewFacts } from "../../steps/logReads.ts";

/** The longest delay setTimeout takes (about 24.8 days); a later deadline is looked at again then. */
const MAX_DELAY_MS = 2 ** 31 - 1;
const PAGE = 100;
/** How soon a deadline that a pass could not expire (a store error) is tried again. */
const RETRY_MS = 5_000;

/**
 * Expires approvals on time in a long-lived local process (`runlog serve`, openLocal with
 * `background`), with nobody running `runlog sweep`: one timer set for the earliest deadline of
 * any approval still waiting (not a poll). When it fires, the expiry pass the sweep runs
 * (expireApprovals) answers what is due as rejected, `by: "timeout"`, under the seq lock, and the
 * run goes on; then the timer is set for the next deadline. Deadlines come from the log: the
 * paused runs' at start, each new `model_response` that asks with a timeout as it is appended.
 */
export class ApprovalTimer {
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (epoch ms), if set. */
  private due: number | undefined;
  private pass: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly deps: ControlDeps,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Look at the paused runs and set the timer for the earliest deadline among them. */
  start(): void {
    this.run(async () => this.at(await this.earliestDeadline()));
  }

  /** An event this process appended: a response that asks with a timeout brings the timer forward. */
  appended(event: RunEvent): void {
    if (event.type !== "model_response" || event.approvalTimeouts === undefined) return;
    const timeouts = Object.values(event.approvalTimeouts);
    if (timeouts.length > 0) this.at(Date.parse(event.at) + Math.min(...timeouts));
  }

  /** Clear the timer and wait for a pass under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.pass;
  }

  /** Set the timer for `deadline` unless it is already set for an earlier time. */
  private at(deadline: number | undefined): void {
    if (this.closed || deadline === undefined || (this.due !== undefined && this.due <= deadline)) return;
    clearTimeout(this.timer);
    this.due = deadline;
    const delay = Math.min(Math.max(0, deadline - this.deps.clock.now().getTime()), MAX_DELAY_MS);
    this.timer = setTimeout(() => this.fire(), delay);
    // It never keeps the process alive by itself: a server does, and a script may end.
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.due = undefined;
    this.run(async () => {
      await expireApprovals(this.deps);
      const next = await this.earliestDeadline();
      // Still due after the pass (it failed on that run): again later, never in a tight loop.
      this.at(next === undefined ? undefined : Math.max(next, this.deps.clock.now().getTime() + RETRY_MS));
    });
  }

  /** One pass at a time, in order; what fails is told, and the next deadline is still looked for. */
  private run(work: () => Promise<void>): void {
    this.pass = this.pass.then(async () => {
      if (this.closed) return;
      try {
        await work();
      } catch (error) {
        this.onError(error);
      }
    });
  }

  /** The earliest deadline of an approval still waiting, in any paused run. */
  private async earliestDeadline(): Promise<number | undefined> {
    let earliest: number | undefined;
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.listRuns({
        status: "paused",
        limit: PAGE,
        ...(cursor === undefined ? {} : { cursor }),
      });
      for (const { runId } of page.runs) {
        for (const { expiresAt } of await this.waiting(runId))
          if (earliest === undefined || expiresAt < earliest) earliest = expiresAt;
      }
      cursor = page.cursor;
    } while (cursor !== undefined);
    return earliest;
  }

  private async waiting(runId: string) {
    try {
      return expiringApprovals(viewFacts(this.deps, runId, await readTail(this.deps, runId)));
    } catch (error) {
      // A malformed log expires nothing (as in expireRun); resume-point says what is wrong with it.
      if (error instanceof CorruptEventError) return [];
      throw error;
    }
  }
}
