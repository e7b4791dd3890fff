import type { RunEvent } from "../../core/events.ts";
import {
  decodeEventBody,
  type EncodedEvent,
  encodeEventBody,
  parseEventBody,
} from "../encoding/eventBody.ts";
import { runSql, type SqliteConnection } from "./connection.ts";
import { expiredBy, nowSeconds, type Row } from "./rows.ts";

/** An event encoded for its row, before the (synchronous) insert. */
export interface EventRow {
  runId: string;
  event: RunEvent;
  body: EncodedEvent;
}

/**
 * Bodies under this many bytes are stored as text: they fit one page of the file (4 KB) compressed
 * or not, so compressing would not write a page less per commit, and reading them back would
 * unpack each, one zlib call a body (bench/HISTORY.md, 2026-12-06 21:00: the A/B of this threshold).
 */
export const PLAIN_BELOW_BYTES = 4096;

/** Encode an event's body (compressing a large one off the main thread) ahead of the insert that commits it. */
export async function encodeEventRow(runId: string, event: RunEvent): Promise<EventRow> {
  return { runId, event, body: await encodeEventBody(runId, event, PLAIN_BELOW_BYTES) };
}

const INSERT_EVENT = runSql(
  "INSERT INTO events (run_id, seq, type, at, enc, body) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
);

/**
 * Insert an event unless its seq is taken: the primary key (run_id, seq) is
 * the optimistic lock. False when another writer holds the seq. Uncompressed
 * bodies are stored as text, so the file reads plainly in any SQLite browser.
 */
export function insertEvent(db: SqliteConnection, row: EventRow): boolean {
  const { runId, event, body } = row;
  const stored = body.encoding === "identity" ? body.text : body.data;
  const result = db
    .statement(INSERT_EVENT)
    .run(runId, event.seq, event.type, event.at, body.encoding, stored);
  return Number(result.changes) > 0;
}

/** Hides the events of a run whose head has expired: parameters ?1 run id, ?3 now (nowSeconds). */
export const LIVE = `NOT EXISTS (SELECT 1 FROM heads WHERE run_id = ?1 AND ${expiredBy("?3")})`;

const READ_AFTER = runSql(
  `SELECT seq, enc, body FROM events WHERE run_id = ?1 AND seq > ?2 AND ${LIVE} ORDER BY seq`,
);
const READ_BACK = runSql(
  `SELECT seq, enc, body FROM events WHERE run_id = ?1 AND seq < ?2 AND ${LIVE} ORDER BY seq DESC LIMIT ?4`,
);

/**
 * In order, so a corrupt row is reported at the lowest bad seq. A text row (most of a local log)
 * is parsed on the spot: only a compressed one waits for its unpacking, not every row a tick.
 */
async function decodeRows(runId: string, rows: readonly Row[]): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for (const row of rows) {
    events.push(
      typeof row.body === "string" && row.enc === "identity"
        ? parseEventBody(runId, Number(row.seq), row.body)
        : await decodeRow(runId, row),
    );
  }
  return events;
}

export function decodeRow(runId: string, row: Row): Promise<RunEvent> {
  const body = row.body;
  const bytes = typeof body === "string" || body instanceof Uint8Array ? body : String(body);
  return decodeEventBody(runId, Number(row.seq), bytes, String(row.enc));
}

/** One event, undefined when its seq is free (or the run has expired). */
export async function readEvent(
  db: SqliteConnection,
  runId: string,
  seq: number,
): Promise<RunEvent | undefined> {
  const row = db.attempt(
    `read seq ${seq} of run ${runId}`,
    () =>
      db
        .statement(`SELECT seq, enc, body FROM events WHERE run_id = ?1 AND seq = ?2 AND ${LIVE}`)
        .get(runId, seq, nowSeconds(db)),
    { runId, seq },
  );
  return row ? decodeRow(runId, row) : undefined;
}

/** The events after `afterSeq`, in order; CorruptEventError names the seq of a bad row. */
export async function readEvents(db: SqliteConnection, runId: string, afterSeq: number): Promise<RunEvent[]> {
  const rows = db.attempt(
    `read run ${runId} after seq ${afterSeq}`,
    () => db.statement(READ_AFTER).all(runId, afterSeq, nowSeconds(db)),
    { runId },
  );
  return decodeRows(runId, rows);
}

/**
 * Events from the newest back to the first `stop` accepts, oldest first. Read
 * in growing pages and decoded one at a time, so nothing past the boundary is
 * unpacked (or judged corrupt).
 */
export async function readBack(
  db: SqliteConnection,
  runId: string,
  stop: (event: RunEvent) => boolean,
): Promise<RunEvent[]> {
  const newestFirst: RunEvent[] = [];
  let below = Number.MAX_SAFE_INTEGER;
  for (let limit = 8; ; limit = Math.min(limit * 4, 1024)) {
    const rows = db.attempt(
      `read the tail of run ${runId}`,
      () => db.statement(READ_BACK).all(runId, below, nowSeconds(db), limit),
      { runId },
    );
    for (const row of rows) {
      const event = await decodeRow(runId, row);
      newestFirst.push(event);
      if (stop(event)) return newestFirst.reverse();
      below = event.seq;
    }
    if (rows.length < limit) return newestFirst.reverse();
  }
}
