import { PermanentError } from "../../core/errors.ts";
import type { DatabaseSync } from "./nodeSqlite.ts";

/** Bumped with every change to the tables below; stored in the file as `PRAGMA user_version`. */
export const SCHEMA_VERSION = 2;

/**
 * One row per event, primary key (run_id, seq): inserting a taken seq fails,
 * which is the optimistic lock. `body` is the canonical JSON as text, or its
 * Brotli form as a blob (`enc` says which; BLOB affinity keeps either as
 * given). `type` and `at` are copies for people browsing the file. One row per
 * run in `heads`, for listing, leasing and expiry: a run's expiry lives on its
 * head alone, and reads hide the events of a run whose head has expired.
 * `auto_resumes` (NULL: never resumed automatically) and `auto_resumed_at`
 * keep the head's AutoResumes record.
 */
const TABLES = `
CREATE TABLE events (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL CHECK (seq >= 1),
  type TEXT NOT NULL,
  at TEXT NOT NULL,
  enc TEXT NOT NULL,
  body BLOB NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE heads (
  run_id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  status TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  lease_version INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER,
  auto_resumes INTEGER,
  auto_resumed_at INTEGER
);
CREATE INDEX heads_by_update ON heads (updated_at DESC, run_id DESC);
CREATE INDEX heads_by_status ON heads (status, updated_at DESC, run_id DESC);
CREATE INDEX heads_expiring ON heads (expires_at) WHERE expires_at IS NOT NULL;
`;

/**
 * What turns a file of each older version into the next one, by the version it
 * starts from. Each step only adds, so a file is never rewritten wholesale.
 */
const UPGRADES: Record<number, string> = {
  // Version 2: the sweeper's automatic-resume record on each head.
  1: "ALTER TABLE heads ADD COLUMN auto_resumes INTEGER; ALTER TABLE heads ADD COLUMN auto_resumed_at INTEGER;",
};

const versionOf = (db: DatabaseSync) => Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);

/**
 * Create the tables in a new file, upgrade a file of an older version step by
 * step (in one transaction: all steps or none), or refuse one of a newer
 * version. Several processes may open a file at once: the check is repeated
 * under the write lock, so exactly one creates or upgrades the tables.
 */
export function migrate(db: DatabaseSync, file: string): void {
  if (versionOf(db) === SCHEMA_VERSION) return;
  db.exec("BEGIN IMMEDIATE");
  try {
    const version = versionOf(db);
    if (version === 0) {
      db.exec(TABLES);
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    } else if (version < SCHEMA_VERSION) {
      for (let from = version; from < SCHEMA_VERSION; from++) db.exec(upgradeFrom(from, file));
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    } else if (version !== SCHEMA_VERSION) {
      throw new PermanentError(
        `${file} holds runlog store schema version ${version}; this runlog reads version ${SCHEMA_VERSION}: ` +
          "upgrade runlog, or point it at another data dir",
      );
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

function upgradeFrom(version: number, file: string): string {
  const sql = UPGRADES[version];
  if (sql === undefined) {
    throw new PermanentError(`${file} holds runlog store schema version ${version}, which no runlog wrote`);
  }
  return sql;
}
