import { constants, createBrotliDecompress } from "node:zlib";
import { CorruptEventError, errorMessage } from "../../core/errors.ts";
import { EVENT_PREVIEW_BYTES } from "../../ports/eventStore.ts";

/**
 * Stored bytes a preview is unpacked from: at Brotli's fast level the first 2 KB of JSON come from
 * far fewer, and a body shorter than this is read whole.
 */
export const PREVIEW_SOURCE_BYTES = 16 * 1024;

/** The first `maxBytes` bytes of UTF-8 text as a string, cut before a character split at the end. */
export function utf8Prefix(bytes: Uint8Array, maxBytes = EVENT_PREVIEW_BYTES): string {
  // `stream: true` holds back an incomplete last character instead of turning it into U+FFFD.
  return new TextDecoder("utf-8").decode(bytes.subarray(0, maxBytes), { stream: true });
}

/**
 * Unpack the start of a Brotli stream from a prefix of it: FLUSH at the end of the input returns
 * what the prefix holds instead of failing on the missing rest, and the stream is stopped as
 * soon as `maxBytes` are out, so a highly compressed body is never unpacked whole.
 */
function unpackStart(data: Buffer, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
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
 * enough), encoded as the store says. CorruptEventError (naming the seq) when it does not unpack.
 */
export async function previewOfBody(
  runId: string,
  seq: number,
  start: string | Uint8Array,
  encoding: string,
): Promise<string> {
  if (typeof start === "string") {
    if (encoding !== "identity")
      throw new CorruptEventError(runId, seq, `a ${encoding} body is stored as text`);
    return utf8Prefix(Buffer.from(start, "utf8"));
  }
  if (encoding === "identity") return utf8Prefix(start);
  if (encoding !== "br") throw new CorruptEventError(runId, seq, `unknown body encoding ${encoding}`);
  try {
    return utf8Prefix(await unpackStart(Buffer.from(start), EVENT_PREVIEW_BYTES));
  } catch (error) {
    throw new CorruptEventError(runId, seq, `the compressed body does not unpack (${errorMessage(error)})`);
  }
}
