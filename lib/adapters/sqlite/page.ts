import type { EventPage, EventSummary, PageEntry, PageRequest } from "../../ports/eventStore.ts";
import { PREVIEW_SOURCE_BYTES, previewOfBody } from "../encoding/preview.ts";
import { checkPageRequest, planPage } from "../eventPage.ts";
import type { SqliteConnection } from "./connection.ts";
import { decodeRow, LIVE } from "./log.ts";
import { nowSeconds, type Row } from "./rows.ts";

const int = (value: Row[string] | undefined) => Number(value);

/**
 * A bounded page of a run's log (see EventStore.readPage): the stored sizes of at most limit + 1
 * events, then the bodies of those the page holds whole, then the first PREVIEW_SOURCE_BYTES of
 * those it only summarizes. Separate reads agree because rows never change once written.
 */
export async function readPage(
  db: SqliteConnection,
  runId: string,
  request: PageRequest,
): Promise<EventPage> {
  const checked = checkPageRequest(runId, request);
  const { afterSeq, limit, maxBytes } = checked;
  const what = `read a page of run ${runId} after seq ${afterSeq}`;
  const now = nowSeconds(db);
  const sizes = db.attempt(
    what,
    () =>
      db
        .statement(
          `SELECT seq, type, at, octet_length(body) AS bytes FROM events WHERE run_id = ?1 AND seq > ?2 AND ${LIVE} ORDER BY seq LIMIT ?4`,
        )
        .all(runId, afterSeq, now, limit + 1),
    { runId },
  );
  const plan = planPage(
    sizes.map((row) => ({ seq: int(row.seq), storedBytes: int(row.bytes) })),
    checked,
  );
  const last = plan.entries.at(-1)?.seq ?? afterSeq;
  // Whole bodies only up to maxBytes each: a summarized event's body is never read here.
  const bodies = db.attempt(
    what,
    () =>
      db
        .statement(
          `SELECT seq, enc, body FROM events WHERE run_id = ?1 AND seq > ?2 AND seq <= ?4 AND octet_length(body) <= ?5 AND ${LIVE} ORDER BY seq`,
        )
        .all(runId, afterSeq, now, last, maxBytes),
    { runId },
  );
  const bySeq = new Map(bodies.map((row) => [int(row.seq), row]));
  const meta = new Map(sizes.map((row) => [int(row.seq), row]));
  const entries: PageEntry[] = [];
  for (const { seq, whole } of plan.entries) {
    const row = bySeq.get(seq);
    if (whole && row) entries.push({ event: await decodeRow(runId, row) });
    else if (!whole) entries.push({ summary: await summarize(db, runId, meta.get(seq)!) });
    // A whole event missing from the second read expired in between: the run is gone, as for read().
    else return { entries: [], more: false };
  }
  return { entries, more: plan.more };
}

async function summarize(db: SqliteConnection, runId: string, row: Row): Promise<EventSummary> {
  const seq = int(row.seq);
  const start = db.attempt(
    `read the start of seq ${seq} of run ${runId}`,
    () =>
      db
        .statement(
          // substr counts characters of text and bytes of a blob: either way at least the bytes a preview needs.
          "SELECT enc, substr(body, 1, ?3) AS start FROM events WHERE run_id = ?1 AND seq = ?2",
        )
        .get(runId, seq, PREVIEW_SOURCE_BYTES),
    { runId, seq },
  );
  const body = start?.start;
  const bytes = typeof body === "string" || body instanceof Uint8Array ? body : "";
  return {
    seq,
    type: String(row.type) as EventSummary["type"],
    at: String(row.at),
    storedBytes: int(row.bytes),
    preview: await previewOfBody(runId, seq, bytes, String(start?.enc ?? "identity")),
  };
}
