import { describe, expect, it, vi } from "vitest";
import { EXPIRED_BATCH_RUNS } from "../../../lib/adapters/sqlite/expiry.ts";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { openRawSqlite } from "../../contract/sqliteRaw.ts";
import { tempStoreFile } from "./helpers.ts";
import { message, started } from "./support.ts";

/** Rows of `table` in the file, read past the store. */
function rows(file: string, table: "heads" | "events"): number {
  const raw = openRawSqlite(file);
  try {
    return Number(raw.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n);
  } finally {
    raw.close();
  }
}

/** A store file holding `expired` runs whose expiry has passed (two events each) and one live run. */
async function fileWithExpired(label: string, expired: number): Promise<string> {
  const file = tempStoreFile(label);
  const store = new SqliteEventStore({ file });
  await Promise.all(
    Array.from({ length: expired }, async (_, i) => {
      await store.createRun(started(`old-${i}`));
      await store.append(`old-${i}`, message(2));
    }),
  );
  await store.createRun(started("live"));
  await store.close();
  const raw = openRawSqlite(file);
  raw.exec("UPDATE heads SET expires_at = 1 WHERE run_id LIKE 'old-%'");
  raw.close();
  return file;
}

describe("deleting the runs whose expiry has passed (SQLite)", () => {
  it("opening deletes one bounded batch, then the backlog batch by batch, while reads hide it all", async () => {
    const backlog = 2 * EXPIRED_BATCH_RUNS + 50;
    const file = await fileWithExpired("backlog", backlog);
    const store = new SqliteEventStore({ file });
    try {
      // Open took one batch, not the whole backlog in one transaction.
      expect(rows(file, "heads")).toBe(1 + backlog - EXPIRED_BATCH_RUNS);
      expect((await store.listRuns()).runs.map((head) => head.runId)).toEqual(["live"]);
      expect(await store.read("old-0")).toEqual([]);
      expect(await store.getHead(`old-${backlog - 1}`)).toBeUndefined();
      await vi.waitFor(() => expect(rows(file, "heads")).toBe(1), { timeout: 5_000, interval: 20 });
      expect(rows(file, "events")).toBe(1);
      expect((await store.read("live")).map((event) => event.seq)).toEqual([1]);
    } finally {
      await store.close();
    }
  });

  it("does not wait for another writer's lock at open: the batch is left for later", async () => {
    const file = await fileWithExpired("busy", 3);
    const raw = openRawSqlite(file);
    raw.exec("BEGIN IMMEDIATE");
    let store: SqliteEventStore | undefined;
    try {
      store = new SqliteEventStore({ file, busyTimeoutMs: 300, expirySweepMs: 60_000 });
      expect((await store.listRuns()).runs.map((head) => head.runId)).toEqual(["live"]);
    } finally {
      raw.exec("ROLLBACK");
      raw.close();
    }
    // Tried again soon after, once the lock is free.
    await vi.waitFor(() => expect(rows(file, "heads")).toBe(1), { timeout: 5_000, interval: 50 });
    await store.close();
  });

  it("a store that stays open deletes the runs that expire while it is open, and stops when closed", async () => {
    let now = Date.now();
    const clock = { now: () => new Date(now) };
    const file = tempStoreFile("periodic");
    const store = new SqliteEventStore({ file, clock, expirySweepMs: 30 });
    await store.createRun(started("soon"));
    await store.append("soon", message(2));
    await store.createRun(started("kept"));
    await store.expire("soon", new Date(now + 60_000));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rows(file, "heads")).toBe(2);
    now += 120_000;
    expect(await store.getHead("soon")).toBeUndefined();
    await vi.waitFor(() => expect(rows(file, "events")).toBe(1), { timeout: 5_000, interval: 20 });
    expect(rows(file, "heads")).toBe(1);
    await store.expire("kept", new Date(now + 60_000));
    await store.close();
    now += 120_000;
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Closed: nothing more is deleted (the next open will).
    expect(rows(file, "heads")).toBe(1);
  });
});
