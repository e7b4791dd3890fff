import { canonicalJson } from "../../core/canonicalJson.ts";
import { CorruptEventError, errorMessage, InvalidInputError } from "../../core/errors.ts";
import type { RunEvent } from "../../core/events.ts";
import { decodeStoredEvent } from "../../core/storedEvents.ts";
import { MAX_EVENT_BYTES } from "../../ports/eventStore.ts";
import { COMPRESS_MIN_BYTES, decodeBody, type Encoding, encodeBody } from "./compression.ts";

/**
 * How every store writes and reads an event's body: canonical JSON, Brotli
 * when that pays, checked against MAX_EVENT_BYTES on the way in and against
 * its envelope (decodeStoredEvent) and its seq on the way out. Stores differ only in where
 * they put the bytes.
 *
 * An event's body as a store keeps it: its canonical JSON as text, or that JSON compressed. Most
 * bodies stay text, and a store that keeps text (SQLite's TEXT, DynamoDB's S) takes the string
 * as it is, so the JSON is never turned into bytes and back.
 */
export type EncodedEvent = (
  | { encoding: "identity"; text: string }
  | { encoding: Exclude<Encoding, "identity">; data: Buffer }
) & {
  /** The stored size: the text's UTF-8 length, or the compressed bytes'. */
  bytes: number;
};

function tooBig(runId: string, event: RunEvent, bytes: number): InvalidInputError {
  const fromUser = event.type === "run_started" || event.type === "resumed" || event.type === "user_message";
  return new InvalidInputError(
    `run ${runId}: the ${event.type} event at seq ${event.seq} is ${bytes} bytes as stored, over the ` +
      `${MAX_EVENT_BYTES} an event can hold${fromUser ? ": shorten the input" : ""}`,
  );
}

/**
 * The body to store for an event, compressed from `compressMinBytes` (the store's choice, see
 * encodeBody); InvalidInputError when it is over MAX_EVENT_BYTES.
 */
export async function encodeEventBody(
  runId: string,
  event: RunEvent,
  compressMinBytes = COMPRESS_MIN_BYTES,
): Promise<EncodedEvent> {
  const text = canonicalJson(event);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_EVENT_BYTES) throw tooBig(runId, event, bytes);
  if (bytes < compressMinBytes) return { encoding: "identity", text, bytes };
  const packed = await encodeBody(Buffer.from(text, "utf8"), compressMinBytes);
  return packed.encoding === "identity"
    ? { encoding: "identity", text, bytes }
    : { encoding: packed.encoding, data: packed.data, bytes: packed.data.length };
}

/**
 * An event from its stored JSON text, its envelope checked (decodeStoredEvent: the store wrote it
 * from a typed event) and its seq checked against the one it is stored at.
 */
export function parseEventBody(runId: string, seq: number, body: string): RunEvent {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    throw new CorruptEventError(runId, seq, `body is not valid JSON (${errorMessage(error)})`);
  }
  const decoded = decodeStoredEvent(raw);
  if (!decoded.ok) throw new CorruptEventError(runId, seq, decoded.problem);
  if (decoded.event.seq !== seq) {
    throw new CorruptEventError(runId, seq, `the body says seq ${decoded.event.seq}`);
  }
  return decoded.event;
}

/**
 * An event from a stored body: text is uncompressed JSON, bytes are unpacked
 * by `encoding`. CorruptEventError names the seq of anything that does not decode.
 */
export async function decodeEventBody(
  runId: string,
  seq: number,
  body: string | Uint8Array,
  encoding: string,
): Promise<RunEvent> {
  if (typeof body === "string") {
    if (encoding !== "identity") {
      throw new CorruptEventError(runId, seq, `a ${encoding} body is stored as text`);
    }
    return parseEventBody(runId, seq, body);
  }
  const data = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return parseEventBody(runId, seq, await decodeBody(runId, seq, data, encoding));
}
