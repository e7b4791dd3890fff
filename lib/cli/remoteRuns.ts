import type { ListedEvent } from "../api/followRun.ts";
import type { RunOutcome } from "../api/types.ts";
import type { ResumeView } from "../api/views.ts";
import type { RunlogClient } from "../client/client.ts";
import type { ClientError } from "../client/errors.ts";
import { ConflictError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { JsonValue } from "../core/structuredOutput.ts";
import type { CliRuns } from "./runs.ts";
import { UsageError } from "./usage.ts";

/** How long one long-poll for a run's next event holds, in seconds (the API allows up to 20). */
const WAIT_SECONDS = 20;

/**
 * The runs behind runlog's HTTP API (`--url`), through runlog/client. The API answers a start or
 * a steer as the run goes on (`running`); the CLI, like the library, answers once the run has
 * settled, so here each such call then follows the run's log (long-polling its events, each
 * told to `appended` as the local observer would be) until its status is no longer `running`.
 */
export function remoteRuns(
  client: RunlogClient,
  appended: (runId: string, event: RunEvent) => void,
  url: string,
): CliRuns {
  /** The seq a run's log ends at now: where following it for what a call appends begins. */
  async function lastSeq(runId: string): Promise<number> {
    let after = 0;
    for (;;) {
      const page = await client.eventPage(runId, { after, limit: 1000 });
      after = page.events.at(-1)?.seq ?? after;
      if (page.next === undefined) return after;
      after = page.next;
    }
  }

  /** The run's outcome once nobody executes it; every event after `after` told as it comes. */
  async function settled(runId: string, after: number): Promise<RunOutcome<JsonValue>> {
    for (;;) {
      const outcome = await client.get(runId);
      if (outcome.status !== "running") {
        await tell(runId, after, 0);
        return outcome;
      }
      after = await tell(runId, after, WAIT_SECONDS);
    }
  }

  /** Tell the events after `after` (waiting up to `wait` seconds for one); the seq told last. */
  async function tell(runId: string, after: number, wait: number): Promise<number> {
    let next: number | undefined = after;
    while (next !== undefined) {
      const page = await client.eventPage(runId, { after: next, limit: 1000, wait });
      for (const event of page.events) {
        appended(runId, await whole(runId, event));
        after = event.seq;
      }
      next = page.next;
      wait = 0;
    }
    return after;
  }

  /** An event listed truncated (too big for a page), read whole. */
  const whole = async (runId: string, event: ListedEvent): Promise<RunEvent> =>
    "truncated" in event ? client.event(runId, event.seq) : event;

  /** A call that changes a run, then the run followed until it settles. */
  async function steer(
    runId: string,
    call: () => Promise<RunOutcome<JsonValue>>,
  ): Promise<RunOutcome<JsonValue>> {
    const after = await lastSeq(runId);
    const answer = await call();
    return settled(answer.runId, answer.runId === runId ? after : 0);
  }

  return {
    async start(request) {
      const { created, ...answer } = await client.start(request);
      // An existing run (the same id or key again) is answered as it is, as the library does.
      const outcome = created ? await settled(answer.runId, 0) : await client.get(answer.runId);
      return { outcome, created };
    },
    async resume(request) {
      const { runId } = request;
      const after = await lastSeq(runId);
      try {
        const view = await client.resume(request);
        if (!view.resumed) return { view, description: (await client.resumePoint(runId)).description };
        const outcome = await settled(runId, after);
        return { view: { ...view, ...outcome } };
      } catch (error) {
        // The API answers a dead end other than `completed` with a 409; the CLI reports it as the run's state.
        const response = (error as Partial<ClientError>).response;
        if (!(error instanceof ConflictError) || response?.code !== "not_resumable") throw error;
        const outcome = await client.get(runId);
        const reason = response.reason as Extract<ResumeView, { resumed: false }>["reason"];
        const view: ResumeView = { ...outcome, resumed: false, reason };
        return { view, description: error.message };
      }
    },
    resumePoint: (runId) => client.resumePoint(runId),
    async events(runId) {
      const listed = await client.events(runId);
      return Promise.all(listed.map((event) => whole(runId, event)));
    },
    async list(filter, cursor) {
      return client.list({ ...filter, limit: 1000, ...(cursor === undefined ? {} : { cursor }) });
    },
    send: (runId, message, options) => steer(runId, () => client.send(runId, message, options)),
    fork: ({ runId, idempotencyKey, ...body }) =>
      steer(runId, () => client.fork({ runId, ...body }, { ...(idempotencyKey ? { idempotencyKey } : {}) })),
    decide: (runId, callId, approved, actor, options) =>
      steer(runId, () => client.decide(runId, callId, approved, actor, options)),
    cancel: (runId, actor, options) => steer(runId, () => client.cancel(runId, actor, options)),
    sweep() {
      throw new UsageError(
        `sweep runs where the runs are executed, not through the API at ${url}: the deployment's schedule sweeps it (or run runlog sweep there)`,
      );
    },
    redrive() {
      throw new UsageError(
        `redrive is not offered through the CLI's --url (${url}): call POST /runs/redrive with an admin's credentials, or run runlog redrive where the table is`,
      );
    },
  };
}
