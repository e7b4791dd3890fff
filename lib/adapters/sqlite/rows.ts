import { ownerScope } from "../../core/principal.ts";
import { RUN_STATUSES, type RunStatus } from "../../core/status.ts";
import type { AutoResumes, RunHead } from "../../ports/eventStore.ts";
import type { SQLInputValue, SQLOutputValue } from "./nodeSqlite.ts";

/** A row as node:sqlite returns it. */
export type Row = Record<string, SQLOutputValue>;

/** The columns of `heads` a RunHead is read from, in SELECT form. */
export const HEAD_COLUMNS =
  "run_id, agent, status, last_seq, created_at, updated_at, lease_owner, lease_until, lease_version, " +
  "auto_resumes, auto_resumed_at, parent_run_id, parent_seq, owner_id, owner_tenant, owner_scope";

/** One `?` per column of HEAD_COLUMNS, for inserting a whole head. */
export const HEAD_PLACEHOLDERS = HEAD_COLUMNS.split(",")
  .map(() => "?")
  .join(", ");

/**
 * The condition under which a head hides its run: its expiry has passed by
 * the store's clock, bound (as `nowSeconds`) to the parameter named here.
 */
export const expiredBy = (param: string) => `(heads.expires_at IS NOT NULL AND heads.expires_at <= ${param})`;

/**
 * The store's clock in whole epoch seconds, rounded down: an expiry of `s`
 * seconds has passed exactly when `s <= nowSeconds` (as DynamoDB's TTL reads).
 */
export const nowSeconds = (db: { now(): Date }) => Math.floor(db.now().getTime() / 1000);

/** Whether a write changed a row (a compare-and-set that held). */
export const changed = (result: { changes: number | bigint }) => Number(result.changes) > 0;

const text = (value: SQLOutputValue | undefined) => (typeof value === "string" ? value : undefined);
const int = (value: SQLOutputValue | undefined) =>
  typeof value === "number" || typeof value === "bigint" ? Number(value) : undefined;

const isStatus = (value: string | undefined): value is RunStatus =>
  value !== undefined && (RUN_STATUSES as readonly string[]).includes(value);

/** A head row as a RunHead, or undefined when its status is not one this code knows. */
export function decodeHeadRow(row: Row): RunHead | undefined {
  const runId = text(row.run_id);
  const status = text(row.status);
  const lastSeq = int(row.last_seq);
  const agent = text(row.agent);
  const createdAt = text(row.created_at);
  if (runId === undefined || !isStatus(status) || lastSeq === undefined) return undefined;
  if (agent === undefined || createdAt === undefined) return undefined;
  const head: RunHead = {
    runId,
    agent,
    status,
    lastSeq,
    createdAt,
    updatedAt: text(row.updated_at) ?? createdAt,
    leaseVersion: int(row.lease_version) ?? 0,
  };
  const owner = text(row.lease_owner);
  const until = int(row.lease_until);
  if (owner !== undefined && until !== undefined) head.lease = { owner, until };
  const autoResumes = decodeAutoResumes(row);
  if (autoResumes) head.autoResumes = autoResumes;
  const parentRunId = text(row.parent_run_id);
  const parentSeq = int(row.parent_seq);
  if (parentRunId !== undefined && parentSeq !== undefined)
    head.parent = { runId: parentRunId, seq: parentSeq };
  const ownerId = text(row.owner_id);
  const ownerTenant = text(row.owner_tenant);
  if (ownerId !== undefined)
    head.owner = ownerTenant === undefined ? { id: ownerId } : { id: ownerId, tenant: ownerTenant };
  return head;
}

/** The head's AutoResumes record; undefined on a run never resumed automatically (NULL count). */
function decodeAutoResumes(row: Row): AutoResumes | undefined {
  const count = int(row.auto_resumes);
  if (count === undefined) return undefined;
  const lastAt = int(row.auto_resumed_at);
  return lastAt === undefined ? { count } : { count, lastAt };
}

/** The values of `auto_resumes, auto_resumed_at` for a record (NULLs for none). */
export function autoResumesValues(autoResumes: AutoResumes | undefined): [SQLInputValue, SQLInputValue] {
  return [autoResumes?.count ?? null, autoResumes?.lastAt ?? null];
}

/** The values to insert a whole head with, in the order of HEAD_COLUMNS. */
export function headValues(head: RunHead): SQLInputValue[] {
  return [
    head.runId,
    head.agent,
    head.status,
    head.lastSeq,
    head.createdAt,
    head.updatedAt,
    head.lease?.owner ?? null,
    head.lease?.until ?? null,
    head.leaseVersion,
    ...autoResumesValues(head.autoResumes),
    head.parent?.runId ?? null,
    head.parent?.seq ?? null,
    head.owner?.id ?? null,
    head.owner?.tenant ?? null,
    head.owner ? ownerScope(head.owner) : null,
  ];
}
