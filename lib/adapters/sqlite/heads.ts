import { NotFoundError, PermanentError } from "../../core/errors.ts";
import type { RunStatus } from "../../core/status.ts";
import type { RunHead } from "../../ports/eventStore.ts";
import { identityFrom } from "../newHead.ts";
import { runSql, type SqliteConnection } from "./connection.ts";
import { AFTER_FIX } from "./errors.ts";
import type { GroupCommit } from "./groupCommit.ts";
import { readEvent } from "./log.ts";
import {
  changed,
  decodeHeadRow,
  expiredBy,
  HEAD_COLUMNS,
  HEAD_PLACEHOLDERS,
  headValues,
  nowSeconds,
} from "./rows.ts";

const INSERT_HEAD = runSql(
  `INSERT INTO heads (${HEAD_COLUMNS}) VALUES (${HEAD_PLACEHOLDERS}) ON CONFLICT DO NOTHING`,
);
const READ_HEAD = runSql(`SELECT ${HEAD_COLUMNS}, ${expiredBy("?")} AS expired FROM heads WHERE run_id = ?`);
const LAST_SEQ = runSql("SELECT max(seq) AS seq FROM events WHERE run_id = ?");
const SET_STATUS = runSql(
  "UPDATE heads SET status = ?, updated_at = ?, last_seq = max(last_seq, ?), agent = coalesce(?, agent) " +
    "WHERE run_id = ?",
);

/** Insert a whole head unless the run has one; false when it had. */
export function insertHead(db: SqliteConnection, head: RunHead): boolean {
  return changed(db.statement(INSERT_HEAD).run(...headValues(head)));
}

/** The stored head as it is (lagging or not): "none" when there is none, "expired" when it hides the run. */
function storedHead(db: SqliteConnection, runId: string): RunHead | "none" | "expired" {
  const row = db.statement(READ_HEAD).get(nowSeconds(db), runId);
  if (!row) return "none";
  if (row.expired) return "expired";
  const head = decodeHeadRow(row);
  if (!head)
    throw new PermanentError(`run ${runId}: the stored head has an unknown status ${String(row.status)}`, {
      runId,
    });
  return head;
}

/** The highest event seq stored for a run, undefined when it has none. */
function lastEventSeq(db: SqliteConnection, runId: string): number | undefined {
  const row = db.statement(LAST_SEQ).get(runId);
  return typeof row?.seq === "number" ? row.seq : undefined;
}

/**
 * Rebuild a missing head from the log; identity fields come from seq 1. False, writing nothing,
 * when seq 1 is no `run_started` (identityFrom): there is no run yet.
 */
async function repairHead(db: SqliteConnection, runId: string, last: number): Promise<boolean> {
  const identity = identityFrom(await readEvent(db, runId, 1));
  if (!identity) return false;
  const now = db.now().toISOString();
  db.attempt(
    `repair the head of run ${runId}`,
    () =>
      insertHead(db, {
        runId,
        ...identity,
        status: "interrupted",
        lastSeq: last,
        updatedAt: now,
        leaseVersion: 0,
      }),
    { runId, afterFix: AFTER_FIX.resume },
  );
  return true;
}

/** The head, with the log's last seq; a missing one is rebuilt from the log. */
export async function getHead(db: SqliteConnection, runId: string): Promise<RunHead | undefined> {
  const what = `read the head of run ${runId}`;
  const { head, last } = db.attempt(
    what,
    () => ({
      head: storedHead(db, runId),
      last: lastEventSeq(db, runId),
    }),
    { runId },
  );
  // A run whose head has expired is gone, whatever its events say.
  if (head === "expired") return undefined;
  if (last === undefined) return head === "none" ? undefined : head;
  // A head that only lags is normal (appends do not touch it): report the log's last seq, write nothing.
  if (head !== "none") return head.lastSeq >= last ? head : { ...head, lastSeq: last };
  if (!(await repairHead(db, runId, last))) return undefined;
  const repaired = db.attempt(what, () => storedHead(db, runId), { runId });
  if (typeof repaired === "string") {
    throw new PermanentError(`run ${runId}: the head could not be repaired from the log`, { runId });
  }
  return repaired.lastSeq >= last ? repaired : { ...repaired, lastSeq: last };
}

/** Record the status a run rests in (and the agent in charge, when given), moving lastSeq forward too when the head lags behind it. */
export async function setStatus(
  db: SqliteConnection,
  writes: GroupCommit,
  runId: string,
  status: RunStatus,
  lastSeq: number,
  agent?: string,
) {
  const what = `set the status of run ${runId} to ${status}`;
  const update = () =>
    writes.write({
      what,
      facts: { runId, afterFix: AFTER_FIX.resume },
      oneStatement: true,
      run: () =>
        changed(db.statement(SET_STATUS).run(status, db.now().toISOString(), lastSeq, agent ?? null, runId)),
    });
  if (await update()) return;
  // No head: rebuild it from the log (or learn the run does not exist), then try once more.
  if (!(await getHead(db, runId))) throw new NotFoundError(`${what}: run ${runId} does not exist`, { runId });
  if (!(await update())) throw new PermanentError(`${what}: the head could not be updated`, { runId });
}
