import { promisify } from "node:util";
import { CorruptEventError, errorMessage } from "../../core/errors.ts";
import { MAX_EVENT_BYTES } from "../../ports/eventStore.ts";

/**
 * node:zlib, loaded on first use: a process that meets no compressed body (the SQLite store keeps
 * bodies under 4 KB as text) loads none of it, about 2 ms of a fresh process (bench/HISTORY.md,
 * 2026-12-07 01:44).
 */
export const zlib = (): typeof import("node:zlib") => process.getBuiltinModule("node:zlib");

/**
 * Bodies smaller than this are stored as they are, unless a store says otherwise: compressing them
 * saves too little to matter (DynamoDB bills writes by the 1 KB, so above that it pays).
 */
export const COMPRESS_MIN_BYTES = 1024;
/** Compressed bodies are kept only when they save at least this fraction, so random data is never inflated. */
export const MIN_SAVING = 0.1;

/**
 * Bodies of up to this many bytes of JSON are (un)packed on the calling thread: for a few KB
 * that takes microseconds, less than handing the work to the thread pool and
 * back. Larger ones go to the pool, so a big payload never stalls the event loop.
 */
export const SYNC_MAX_BYTES = 64 * 1024;

/** How a stored body is encoded: `br` is Brotli (fast level), `identity` is the JSON's UTF-8 bytes. */
export type Encoding = "br" | "identity";

/** The bytes to store for a body, compressed when that pays: never below `minBytes`. */
export async function encodeBody(
  json: Buffer,
  minBytes: number = COMPRESS_MIN_BYTES,
): Promise<{ data: Buffer; encoding: Encoding }> {
  if (json.length < minBytes) return { data: json, encoding: "identity" };
  const { brotliCompress, brotliCompressSync, constants } = zlib();
  const options = {
    params: {
      // Quality 1: most of the gain for JSON and text at a few ms per MB.
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
      // A window no bigger than the body: the same bytes out, and unpacking it allocates only
      // that much (a 2 KB tool result unpacks in about two thirds of the time the default 4 MB
      // window takes, which a fresh process resuming a long run pays for every body).
      [constants.BROTLI_PARAM_LGWIN]: windowBits(json.length, constants),
    },
  };
  const packed =
    json.length <= SYNC_MAX_BYTES
      ? brotliCompressSync(json, options)
      : await promisify(brotliCompress)(json, options);
  return packed.length <= json.length * (1 - MIN_SAVING)
    ? { data: packed, encoding: "br" }
    : { data: json, encoding: "identity" };
}

/** The smallest Brotli window that holds `bytes` (10 to 24 bits, Brotli's own bounds). */
function windowBits(bytes: number, constants: typeof import("node:zlib").constants): number {
  return Math.min(
    constants.BROTLI_MAX_WINDOW_BITS,
    Math.max(constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(bytes))),
  );
}

const tooLarge = (error: unknown) => (error as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE";

/** Brotli-unpack, on this thread while the output stays small, else in the pool (see SYNC_MAX_BYTES). */
async function unpack(data: Buffer): Promise<Buffer> {
  const { brotliDecompress, brotliDecompressSync } = zlib();
  if (data.length <= SYNC_MAX_BYTES) {
    try {
      return brotliDecompressSync(data, { maxOutputLength: SYNC_MAX_BYTES });
    } catch (error) {
      // Not a failure: the output outgrew the thread's bound, so the pool unpacks it below (a
      // 200 KB body stored as < 64 KB does this: "keeps a medium compressible body inline" in
      // test/adapters/dynamodb/bigEvents.test.ts). Anything else fails the read.
      if (!tooLarge(error)) throw error;
    }
  }
  // The bound keeps a corrupt record from unpacking into more than an event may be.
  return promisify(brotliDecompress)(data, { maxOutputLength: MAX_EVENT_BYTES + 1 });
}

/**
 * What a body stored with `encoding` reads as: `plain` for identity, `unpacked` for Brotli. An
 * unknown encoding, or a Brotli body that does not unpack, is CorruptEventError naming the seq.
 */
export async function byEncoding<T>(
  runId: string,
  seq: number,
  encoding: string,
  plain: () => T,
  unpacked: () => Promise<T>,
): Promise<T> {
  if (encoding === "identity") return plain();
  if (encoding !== "br") throw new CorruptEventError(runId, seq, `unknown body encoding ${encoding}`);
  try {
    return await unpacked();
  } catch (error) {
    throw new CorruptEventError(runId, seq, `the compressed body does not unpack (${errorMessage(error)})`);
  }
}

/** The JSON text of stored bytes; CorruptEventError (naming the seq) when they do not unpack. */
export function decodeBody(runId: string, seq: number, data: Buffer, encoding: string): Promise<string> {
  return byEncoding(
    runId,
    seq,
    encoding,
    () => data.toString("utf8"),
    async () => (await unpack(data)).toString("utf8"),
  );
}
