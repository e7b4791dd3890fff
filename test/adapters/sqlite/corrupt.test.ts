import { describe, expect, it } from "vitest";
import { CorruptEventError } from "../../../lib/core/errors.ts";
import { storeWithRawFile } from "./helpers.ts";
import { message, started } from "./support.ts";

const { store, raw } = storeWithRawFile("corrupt");

/** A run of five events whose seq 3 is a compressed (Brotli) body. */
async function runWithCompressedSeq3(runId: string) {
  await store.createRun(started(runId));
  await store.append(runId, message(2));
  await store.append(runId, message(3, "the quick brown fox jumps over the lazy dog ".repeat(200)));
  await store.append(runId, message(4));
  await store.append(runId, message(5));
  const row = raw.prepare("SELECT enc, body FROM events WHERE run_id = ? AND seq = 3").get(runId);
  expect(row?.enc).toBe("br");
  expect(row?.body).toBeInstanceOf(Uint8Array);
  return row?.body as Uint8Array;
}

async function readError(runId: string): Promise<unknown> {
  return store.read(runId).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("a corrupted row", () => {
  it.each([
    [
      "compressed bytes that do not unpack",
      (body: Uint8Array) => body.map((b) => b ^ 0x5a),
      "br",
      /does not unpack/,
    ],
    ["an unknown encoding", (body: Uint8Array) => body, "zstd", /unknown body encoding zstd/],
    ["a compressed body stored as text", () => "{}", "br", /stored as text/],
  ])(
    "with %s fails read with CorruptEventError naming the run and seq",
    async (name, damage, enc, detail) => {
      const runId = `corrupt-${name.replace(/\W+/g, "-")}`;
      const body = await runWithCompressedSeq3(runId);
      raw
        .prepare("UPDATE events SET body = ?, enc = ? WHERE run_id = ? AND seq = 3")
        .run(damage(body), enc, runId);
      const error = await readError(runId);
      expect(error).toBeInstanceOf(CorruptEventError);
      expect(error).toMatchObject({ runId, seq: 3 });
      expect((error as Error).message).toMatch(detail);
      // Nothing past the boundary of a read is judged: the rows after it still read.
      expect((await store.read(runId, 3)).map((e) => e.seq)).toEqual([4, 5]);
      expect((await store.readBack(runId, (e) => e.seq === 4)).map((e) => e.seq)).toEqual([4, 5]);
      await expect(store.readBack(runId, () => false)).rejects.toMatchObject({ runId, seq: 3 });
      // A page that lists it as a summary (too big for the page) reads only its start: the same error.
      const summarized = store.readPage(runId, { afterSeq: 2, limit: 1, maxBytes: 1 });
      await expect(summarized).rejects.toBeInstanceOf(CorruptEventError);
      await expect(summarized).rejects.toMatchObject({
        runId,
        seq: 3,
        message: expect.stringMatching(detail),
      });
    },
  );
});
