import { InvalidInputError } from "../../core/errors.ts";
import type { DatabaseSync } from "./nodeSqlite.ts";
import { recordForkParents } from "./parents.ts";

/** Bumped with every change to the tables below; stored in the file as `PRAGMA user_version`. */
export const SCHEMA_VERSION = 4;

const BY_PARENT =
  "CREATE INDEX heads_by_parent ON heads (parent_run_id, updated_at DESC, run_id DESC) " +
  "WHERE parent_run_id IS NOT NULL;";

const BY_OWNER =
  "CREATE INDEX heads_by_owner ON heads (owner_scope, updated_at DESC, run_id DESC) " +
  "WHERE owner_scope IS NOT NULL; " +
  "CREATE INDEX heads_running_by_owner ON heads (owner_scope) " +
  "WHERE owner_scope IS NOT NULL AND status = 'running';";

/**
 * One row per event, primary key (run_id, seq): inserting a taken seq fails,
 * which is the optimistic lock. `body` is the canonical JSON as text, or its
 * Brotli form as a blob (`enc` says which; BLOB affinity keeps either as
 * given). `type` and `at` are copies for people browsing the file. One row per
 * run in `heads`, for listing, leasing and expiry: a run's expiry lives on its
 * head alone, and reads hide the events of a run whose head has expired.
 * `auto_resumes` (NULL: never resumed automatically) and `auto_resumed_at`
 * keep the head's AutoResumes record; a fork's `parent_run_id` and `parent_seq`
 * say where it was forked, and `heads_by_parent` lists a run's forks. The owner
 * (`owner_id`, `owner_tenant`) and its scope (core/principal.ts) list an owner's
 * runs (`heads_by_owner`) and count its running ones (`heads_running_by_owner`).
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
  auto_resumed_at INTEGER,
  parent_run_id TEXT,
  parent_seq INTEGER,
  owner_id TEXT,
  owner_tenant TEXT,
  owner_scope TEXT
);
CREATE INDEX heads_by_update ON heads (updated_at DESC, run_id DESC);
CREATE INDEX heads_by_status ON heads (status, updated_at DESC, run_id DESC);
CREATE INDEX heads_expiring ON heads (expires_at) WHERE expires_at IS NOT NULL;
${BY_PARENT}
${BY_OWNER}
`;

/**
 * What turns a file of each older version into the next one, by the version it
 * starts from. Each step only adds, so a file is never rewritten wholesale.
 */
const UPGRADES: Record<number, (db: DatabaseSync) => void> = {
  // Version 2: the sweeper's automatic-resume record on each head.
  1: (db) =>
    db.exec(
      "ALTER TABLE heads ADD COLUMN auto_resumes INTEGER; ALTER TABLE heads ADD COLUMN auto_resumed_at INTEGER;",
    ),
  // Version 3: each fork's parent on its head, filled in for the forks already stored.
  2: (db) => {
    db.exec(
      `ALTER TABLE heads ADD COLUMN parent_run_id TEXT; ALTER TABLE heads ADD COLUMN parent_seq INTEGER; ${BY_PARENT}`,
    );
    recordForkParents(db);
  },
  // Version 4: each run's owner on its head. Runs stored before owners were recorded have none.
  3: (db) =>
    db.exec(
      "ALTER TABLE heads ADD COLUMN owner_id TEXT; ALTER TABLE heads ADD COLUMN owner_tenant TEXT; " +
        `ALTER TABLE heads ADD COLUMN owner_scope TEXT; ${BY_OWNER}`,
    ),
};

const versionOf = (db: DatabaseSync) => Number(db.prepare("PRAGMA user_version").get()?.user_version ?? 0);

/**
 * Create the tables in a new file, upgrade a file of an older version step by
 * step (in one transaction: all steps or none), or refuse one of a newer
 * version, unchanged: an InvalidInputError naming the data dir, which the caller chose (the CLI's
 * exit 2, an unusable data dir). Several processes may open a file at once: the check is repeated
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
      for (let from = version; from < SCHEMA_VERSION; from++) upgradeFrom(from, file)(db);
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    } else if (version !== SCHEMA_VERSION) {
      throw new InvalidInputError(
        `${file} holds runlog store schema version ${version}; this runlog reads version ${SCHEMA_VERSION}: ` +
          "upgrade runlog, or point it at another data dir",
        { field: "dataDir" },
      );
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

function upgradeFrom(version: number, file: string): (db: DatabaseSync) => void {
  const upgrade = UPGRADES[version];
  if (upgrade === undefined) {
    throw new InvalidInputError(
      `${file} holds runlog store schema version ${version}, which no runlog wrote`,
      {
        field: "dataDir",
      },
    );
  }
  return upgrade;
}
