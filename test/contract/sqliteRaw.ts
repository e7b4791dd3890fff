import { loadNodeSqlite } from "../../lib/adapters/sqlite/nodeSqlite.ts";
import type { RawAccess } from "./fixtures.ts";

/** A second connection to a store's SQLite file, past the store: rows of `events` and `heads`. */
export function openRawSqlite(file: string) {
  const { DatabaseSync } = loadNodeSqlite();
  const db = new DatabaseSync(file);
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/** Raw access to a SQLite store's file (see lib/adapters/sqlite/schema.ts). */
export function sqliteRaw(file: string): RawAccess & { close(): void } {
  const db = openRawSqlite(file);
  return {
    async head(runId) {
      const row = db.prepare("SELECT agent, status, last_seq FROM heads WHERE run_id = ?").get(runId);
      return row
        ? { agent: String(row.agent), status: String(row.status), lastSeq: Number(row.last_seq) }
        : undefined;
    },
    async deleteHead(runId) {
      db.prepare("DELETE FROM heads WHERE run_id = ?").run(runId);
    },
    async setLastSeq(runId, lastSeq) {
      db.prepare("UPDATE heads SET last_seq = ? WHERE run_id = ?").run(lastSeq, runId);
    },
    async putEventBody(runId, seq, body) {
      db.prepare(
        "INSERT INTO events (run_id, seq, type, at, enc, body) VALUES (?, ?, 'user_message', '2020-01-01T00:00:00Z', 'identity', ?)",
      ).run(runId, seq, body);
    },
    async eventBody(runId, seq) {
      const row = db.prepare("SELECT body FROM events WHERE run_id = ? AND seq = ?").get(runId, seq);
      return typeof row?.body === "string" ? row.body : undefined;
    },
    async expiresAt(runId) {
      // A run's expiry lives on its head; its events follow it.
      const row = db.prepare("SELECT expires_at FROM heads WHERE run_id = ?").get(runId);
      if (!row) throw new Error(`run ${runId} has no head`);
      return row.expires_at === null ? undefined : Number(row.expires_at);
    },
    close: () => db.close(),
  };
}
