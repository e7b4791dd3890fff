import { SCHEMA_VERSION } from "./eventEnvelope.ts";
import { EventSchema } from "./events.ts";
import type { Decoded } from "./storedEvents.ts";

/*
 * Decoding a record from outside (a fixture, an import, a test) through the whole event schema:
 * every field checked. A store's own records take decodeStoredEvent (lib/core/storedEvents.ts),
 * which checks the envelope only and builds no schema.
 */

/** Decode one stored record (already JSON-parsed), naming what is wrong when it does not fit. */
export function decodeEvent(raw: unknown): Decoded {
  if (typeof raw === "object" && raw !== null && "v" in raw && raw.v !== SCHEMA_VERSION) {
    return {
      ok: false,
      problem: `unknown schema version ${JSON.stringify(raw.v)} (this runlog reads v${SCHEMA_VERSION})`,
    };
  }
  const parsed = EventSchema.safeParse(raw);
  if (parsed.success) return { ok: true, event: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") : "event";
  return { ok: false, problem: `${where}: ${issue?.message ?? "invalid"}` };
}
