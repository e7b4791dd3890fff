import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_COMPRESS_MIN_BYTES } from "../../../lib/adapters/encoding/compression.ts";
import type { DatabaseSync } from "../../../lib/adapters/sqlite/nodeSqlite.ts";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { openRawSqlite } from "../../contract/sqliteRaw.ts";
import { tempStoreFile } from "./helpers.ts";
import { message, started } from "./support.ts";

let store: SqliteEventStore;
let raw: DatabaseSync;
beforeAll(() => {
  store = new SqliteEventStore({ file: tempStoreFile("encoding") });
  raw = openRawSqlite(store.file);
});
afterAll(async () => {
  raw.close();
  await store.close();
});

const words = (bytes: number) =>
  "the quick brown fox jumps over the lazy dog ".repeat(bytes / 44 + 1).slice(0, bytes);

describe("how the SQLite store encodes a body", () => {
  it("keeps a compressible body of a few KB as text, and compresses one past LOCAL_COMPRESS_MIN_BYTES", async () => {
    await store.createRun(started("enc"));
    // A 2 KB tool output compresses to about half: on DynamoDB it is packed, here it stays text.
    await store.append("enc", message(2, words(2048)));
    await store.append("enc", message(3, words(LOCAL_COMPRESS_MIN_BYTES)));
    const rows = raw
      .prepare("SELECT seq, enc, typeof(body) AS kind FROM events WHERE run_id = ? ORDER BY seq")
      .all("enc");
    expect(rows).toEqual([
      { seq: 1, enc: "identity", kind: "text" },
      { seq: 2, enc: "identity", kind: "text" },
      { seq: 3, enc: "br", kind: "blob" },
    ]);
    expect((await store.read("enc", 1)).map((e) => e.type === "user_message" && e.text.length)).toEqual([
      2048,
      LOCAL_COMPRESS_MIN_BYTES,
    ]);
  });
});
