import { LeaseHeldError, NotFoundError } from "../../core/errors.ts";
import type { AutoResumes, Lease, Resting } from "../../ports/eventStore.ts";
import { runSql, type SqliteConnection } from "./connection.ts";
import { AFTER_FIX } from "./errors.ts";
import type { GroupCommit } from "./groupCommit.ts";
import { getHead } from "./heads.ts";
import { autoResumesValues, changed } from "./rows.ts";

const describeLease = (lease: Lease | undefined) =>
  lease ? `held by ${lease.owner} until ${new Date(lease.until).toISOString()}` : "not held";

const CLAIM =
  "UPDATE heads SET lease_owner = ?, lease_until = ?, status = 'running', lease_version = ?, updated_at = ?";
const CLAIM_AT_VERSION = runSql(`${CLAIM} WHERE run_id = ? AND lease_version = ?`);
const CLAIM_AUTO_RESUMED = runSql(
  `${CLAIM}, auto_resumes = ?, auto_resumed_at = ? WHERE run_id = ? AND lease_version = ?`,
);
const RENEW = runSql("UPDATE heads SET lease_until = ?, updated_at = ? WHERE run_id = ? AND lease_owner = ?");
/**
 * A head that a writer without the lease moved on (a cancel, which records `cancelled` and its seq)
 * keeps what it recorded: the holder's resting status was read before it. SET reads the old row.
 */
const MOVED_ON = "(status = 'cancelled' OR last_seq > coalesce(?1, last_seq))";
const RELEASE = runSql(
  "UPDATE heads SET lease_owner = NULL, lease_until = NULL, updated_at = ?2, " +
    `status = CASE WHEN ${MOVED_ON} THEN status ELSE ?3 END, ` +
    `agent = CASE WHEN ${MOVED_ON} THEN agent ELSE coalesce(?4, agent) END, ` +
    "last_seq = max(last_seq, coalesce(?1, last_seq)) WHERE run_id = ?5 AND lease_owner = ?6",
);

/**
 * The claim's compare-and-set, committed with the other writes of this turn (groupCommit.ts);
 * `autoResumes`, when given, is written by the same statement.
 */
function casClaim(
  db: SqliteConnection,
  writes: GroupCommit,
  runId: string,
  lease: Lease,
  expect: number,
  autoResumes: AutoResumes | undefined,
): Promise<boolean> {
  const claim = [lease.owner, lease.until, expect + 1, db.now().toISOString()];
  return writes.write({
    what: `claim the lease of run ${runId} for ${lease.owner}`,
    facts: { runId, afterFix: AFTER_FIX.resume },
    oneStatement: true,
    run: () =>
      changed(
        autoResumes === undefined
          ? db.statement(CLAIM_AT_VERSION).run(...claim, runId, expect)
          : db.statement(CLAIM_AUTO_RESUMED).run(...claim, ...autoResumesValues(autoResumes), runId, expect),
      ),
  });
}

/** Compare-and-set on lease_version: of several claimers that read the same version, exactly one wins. */
export async function claimLease(
  db: SqliteConnection,
  writes: GroupCommit,
  runId: string,
  lease: Lease,
  expect: number,
  autoResumes?: AutoResumes,
) {
  if (await casClaim(db, writes, runId, lease, expect, autoResumes)) return;
  // Learn why, repairing a missing head on the way; a head rebuilt at the expected version may be claimed.
  const stored = await getHead(db, runId);
  if (!stored) throw new NotFoundError(`claim the lease of run ${runId}: the run does not exist`, { runId });
  // A repeated claim (the same owner and term) finds the lease already its own, as on DynamoDB.
  if (stored.lease?.owner === lease.owner && stored.lease.until === lease.until) return;
  let current = stored;
  if (stored.leaseVersion === expect) {
    if (await casClaim(db, writes, runId, lease, expect, autoResumes)) return;
    current = (await getHead(db, runId)) ?? stored;
  }
  throw new LeaseHeldError(
    `run ${runId}: lease not claimed by ${lease.owner}: expected lease version ${expect} but it is ` +
      `${current.leaseVersion} (${describeLease(current.lease)}); another executor claimed it first`,
    { runId },
  );
}

/** Extend the lease only while this owner still holds it. */
export function renewLease(
  db: SqliteConnection,
  writes: GroupCommit,
  runId: string,
  lease: Lease,
): Promise<boolean> {
  return writes.write({
    what: `renew the lease of run ${runId} for ${lease.owner}`,
    facts: { runId, afterFix: AFTER_FIX.resume },
    oneStatement: true,
    run: () => changed(db.statement(RENEW).run(lease.until, db.now().toISOString(), runId, lease.owner)),
  });
}

/**
 * Drop the lease and record the resting status (and last seq and agent in charge, when given),
 * unless a writer without the lease moved the head on since (MOVED_ON). Exact: one statement
 * conditional on the owner, so true means this call released it, and false (another owner, or
 * released already) means nothing was written. A busy try changed nothing and is made again whole.
 */
export function releaseLease(
  db: SqliteConnection,
  writes: GroupCommit,
  runId: string,
  owner: string,
  { status, lastSeq, agent }: Resting,
): Promise<boolean> {
  // The holder's last seq is the log's: nobody else writes while it holds the lease.
  return writes.write({
    what: `release the lease of run ${runId} held by ${owner}`,
    facts: { runId, afterFix: AFTER_FIX.resume },
    oneStatement: true,
    run: () =>
      changed(
        db
          .statement(RELEASE)
          .run(lastSeq ?? null, db.now().toISOString(), status, agent ?? null, runId, owner),
      ),
  });
}
