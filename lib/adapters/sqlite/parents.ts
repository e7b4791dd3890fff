import { MAX_EVENT_BYTES } from "../../ports/eventStore.ts";
import { zlib } from "../encoding/compression.ts";
import { parseEventBody } from "../encoding/eventBody.ts";
import type { DatabaseSync, SQLOutputValue } from "./nodeSqlite.ts";

/** The JSON text of a stored seq 1, unpacked here because the upgrade runs in one synchronous transaction. */
function bodyText(enc: SQLOutputValue, body: SQLOutputValue): string {
  if (enc === "identity")
    return typeof body === "string" ? body : Buffer.from(body as Uint8Array).toString("utf8");
  const packed = Buffer.from(body as Uint8Array);
  return zlib()
    .brotliDecompressSync(packed, { maxOutputLength: MAX_EVENT_BYTES + 1 })
    .toString("utf8");
}

/**
 * Record on each head the parent its run_started names, for runs stored before heads kept it
 * (the schema upgrade to version 3), so forks made then are listed too. Uncompressed bodies that
 * do not mention a parent are skipped unread. A seq 1 that does not decode is left as it is: the
 * run then has no parent on its head, and reading the run reports the corrupt event as before.
 */
export function recordForkParents(db: DatabaseSync): number {
  const firsts = db
    .prepare(
      "SELECT run_id, enc, body FROM events WHERE seq = 1 AND (enc <> 'identity' OR instr(body, '\"parent\"') > 0)",
    )
    .all();
  const record = db.prepare("UPDATE heads SET parent_run_id = ?, parent_seq = ? WHERE run_id = ?");
  let recorded = 0;
  for (const row of firsts) {
    const runId = String(row.run_id);
    const first = decodedOrUndefined(runId, row.enc ?? null, row.body ?? null);
    if (first?.type !== "run_started" || !first.parent || !("seq" in first.parent)) continue;
    record.run(first.parent.runId, first.parent.seq, runId);
    recorded++;
  }
  return recorded;
}

function decodedOrUndefined(runId: string, enc: SQLOutputValue, body: SQLOutputValue) {
  try {
    return parseEventBody(runId, 1, bodyText(enc, body));
  } catch {
    // repair: the upgrade goes on past a seq 1 that does not decode (test/adapters/sqlite/open.test.ts)
    return undefined;
  }
}
