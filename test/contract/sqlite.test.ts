import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { SqliteEventStore, sqliteFile } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import { describeEventStoreContract } from "./eventStore.contract.ts";
import { sqliteRaw } from "./sqliteRaw.ts";

const dataDir = mkdtempSync(join(tmpdir(), "runlog-sqlite-contract-"));

describeEventStoreContract("SQLite", async () => {
  const store = new SqliteEventStore({ file: sqliteFile(dataDir) });
  const raw = sqliteRaw(store.file);
  return {
    store,
    raw,
    close: async () => {
      raw.close();
      await store.close();
    },
  };
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
