import { CorruptEventError } from "../../core/errors.ts";
import { utf8Prefix } from "../../core/utf8.ts";
import { EVENT_PREVIEW_BYTES } from "../../ports/eventStore.ts";
import { byEncoding, zlib } from "./compression.ts";

/**
 * Stored bytes a preview is unpacked from: at Brotli's fast level the first 2 KB of JSON come from
 * far fewer, and a body shorter than this is read whole.
 */
export const PREVIEW_SOURCE_BYTES = 16 * 1024;

/**
 * Unpack the start of a Brotli stream from a prefix of it: FLUSH at the end of the input returns
 * what the prefix holds instead of failing on the missing rest, and the stream is stopped as
 * soon as `maxBytes` are out, so a highly compressed body is never unpacked whole.
 */
function unpackStart(data: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const { constants, createBrotliDecompress } = zlib();
    const stream = createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH });
    const parts: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(parts).subarray(0, maxBytes));
    stream.on("data", (chunk: Buffer) => {
      parts.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) {
        stream.destroy();
        done();
      }
    });
    stream.on("end", done);
    stream.on("error", reject);
    stream.end(data);
  });
}

/**
 * The start of an event's JSON from the start of its stored body (PREVIEW_SOURCE_BYTES of it are
 * enough), encoded as the store says. CorruptEventError (naming the seq) when it does not unpack,
 * or does not start as an event's JSON does: Brotli has no checksum, and damaged bytes can unpack
 * into noise without an error, which reading the whole body would catch as JSON that does not parse.
 */
export async function previewOfBody(
  runId: string,
  seq: number,
  start: string | Uint8Array,
  encoding: string,
): Promise<string> {
  if (typeof start === "string" && encoding !== "identity")
    throw new CorruptEventError(runId, seq, `a ${encoding} body is stored as text`);
  const bytes = typeof start === "string" ? Buffer.from(start, "utf8") : start;
  const head = await byEncoding(
    runId,
    seq,
    encoding,
    () => bytes,
    () => unpackStart(Buffer.from(bytes), EVENT_PREVIEW_BYTES),
  );
  const text = jsonStart(head);
  if (typeof text === "string") return text;
  const what = encoding === "br" ? "the compressed body does not unpack into JSON" : "body is not valid JSON";
  throw new CorruptEventError(runId, seq, `${what} (${text.problem})`);
}

/** The preview of the first bytes of an event's JSON, or what is wrong with them. */
function jsonStart(head: Uint8Array): string | { problem: string } {
  let text: string;
  try {
    text = utf8Prefix(head, EVENT_PREVIEW_BYTES, true);
  } catch {
    return { problem: "its first bytes are not UTF-8" };
  }
  // Every stored body is one JSON object.
  return text.startsWith("{") ? text : { problem: `it starts ${JSON.stringify(text.slice(0, 16))}` };
}
