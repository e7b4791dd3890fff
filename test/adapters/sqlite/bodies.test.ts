import { describe, expect, it } from "vitest";
import { encodeEventBody } from "../../../lib/adapters/encoding/eventBody.ts";
import { PLAIN_BELOW_BYTES } from "../../../lib/adapters/sqlite/log.ts";
import { storeWithRawFile } from "./helpers.ts";
import { message, started } from "./support.ts";

/** How the local store keeps event bodies: as text up to a page, Brotli above when that pays. */
const { store, raw } = storeWithRawFile("bodies");

const stored = (runId: string, seq: number) =>
  raw.prepare("SELECT enc, body FROM events WHERE run_id = ? AND seq = ?").get(runId, seq) as {
    enc: string;
    body: string | Uint8Array;
  };

/** A compressible text whose event's JSON is about `bytes` long. */
const textOf = (bytes: number) =>
  "the quick brown fox jumps over the lazy dog ".repeat(Math.ceil(bytes / 44)).slice(0, bytes);

describe("the local store's event bodies", () => {
  it("keeps a body under a page as text, though Brotli would halve it, and one over a page compressed", async () => {
    const runId = "bodies-1";
    await store.createRun(started(runId));
    const small = message(2, textOf(2_048));
    const large = message(3, textOf(PLAIN_BELOW_BYTES + 1_000));
    await store.append(runId, small);
    await store.append(runId, large);

    // At DynamoDB's threshold (1 KB) the same body would be compressed.
    expect((await encodeEventBody(runId, small)).encoding).toBe("br");
    expect(stored(runId, 2)).toMatchObject({
      enc: "identity",
      body: expect.stringContaining('"type":"user_message"'),
    });
    expect(stored(runId, 3).enc).toBe("br");
    expect(stored(runId, 3).body).toBeInstanceOf(Uint8Array);
    expect(await store.read(runId, 1)).toEqual([small, large]);
  });

  it("reads a small body an earlier runlog stored compressed", async () => {
    const runId = "bodies-2";
    await store.createRun(started(runId));
    const earlier = message(2, textOf(2_048));
    // As runlog stored it before the local threshold was a page: Brotli from 1 KB.
    const body = await encodeEventBody(runId, earlier);
    if (body.encoding !== "br") throw new Error(`expected a Brotli body, got ${body.encoding}`);
    raw
      .prepare("INSERT INTO events (run_id, seq, type, at, enc, body) VALUES (?, ?, ?, ?, ?, ?)")
      .run(runId, 2, earlier.type, earlier.at, body.encoding, body.data);
    await store.append(runId, message(3));

    const events = await store.read(runId, 1);
    expect(events[0]).toEqual(earlier);
    expect(events.map((event) => event.seq)).toEqual([2, 3]);
  });
});
