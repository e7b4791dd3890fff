import { randomBytes } from "node:crypto";
import { closeSync, openSync, statSync, writeSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AFTER_FIX, toRunlogError } from "../../../lib/adapters/sqlite/errors.ts";
import { type DatabaseSync, loadNodeSqlite } from "../../../lib/adapters/sqlite/nodeSqlite.ts";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { PermanentError, RetryableError } from "../../../lib/core/errors.ts";
import { tempStoreFile } from "./helpers.ts";
import { message, started } from "./support.ts";

/** What node:sqlite throws when a write finds no room: SQLITE_FULL, made real by capping the database's pages. */
function diskFullError(): Error {
  const db = new (loadNodeSqlite().DatabaseSync)(":memory:");
  try {
    db.exec("CREATE TABLE t (x BLOB)");
    const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count);
    db.exec(`PRAGMA max_page_count = ${pages}`);
    db.prepare("INSERT INTO t VALUES (?)").run(new Uint8Array(64 * 1024));
  } catch (error) {
    return error as Error;
  } finally {
    db.close();
  }
  throw new Error("the capped database took the row: no SQLITE_FULL to test with");
}

describe("toRunlogError (SQLite)", () => {
  it("names a full disk and the file, keeping SQLite's own words and the error as its cause", () => {
    const raw = diskFullError();
    expect(raw).toMatchObject({ errcode: 13, message: "database or disk is full" });
    const error = toRunlogError(raw, "append seq 5 of run f1", "/data/.runlog/runlog.db", {
      runId: "f1",
      seq: 5,
      afterFix: AFTER_FIX.resume,
    });
    expect(error).toBeInstanceOf(PermanentError);
    expect(error.message).toBe(
      "append seq 5 of run f1: /data/.runlog/runlog.db: the disk holding it is full: free space there, then resume the run (database or disk is full)",
    );
    expect(error).toMatchObject({ runId: "f1", seq: 5, cause: raw });
    // An operation that says nothing of what to do after (opening the store, a read): try again.
    expect(toRunlogError(raw, "open the store", "/x/runlog.db").message).toBe(
      "open the store: /x/runlog.db: the disk holding it is full: free space there, then try again (database or disk is full)",
    );
  });

  it.each([
    [8, "attempt to write a readonly database", "read-only"],
    [10, "disk I/O error", "failed to read or write"],
    [11, "database disk image is malformed", "damaged"],
    [14, "unable to open database file", "cannot be opened"],
    [26, "file is not a database", "not a database file"],
  ])("says what code %i means for the file", (errcode, message, words) => {
    const raw = Object.assign(new Error(message), { code: "ERR_SQLITE_ERROR", errcode, errstr: message });
    const error = toRunlogError(raw, "read run r", "/x/runlog.db");
    expect(error).toBeInstanceOf(PermanentError);
    expect(error.message).toContain("/x/runlog.db");
    expect(error.message).toContain(words);
    expect(error.message).toContain(message);
  });

  it("keeps an extended code's category: SQLITE_IOERR_WRITE (778) is an I/O error, SQLITE_BUSY_SNAPSHOT (517) busy", () => {
    const io = Object.assign(new Error("disk I/O error"), { errcode: 778 });
    expect(toRunlogError(io, "append", "/x/runlog.db").message).toContain("failed to read or write");
    const busy = Object.assign(new Error("database is locked"), { errcode: 517 });
    expect(toRunlogError(busy, "append", "/x/runlog.db")).toBeInstanceOf(RetryableError);
  });
});

describe("a store's failures name the run, and what to do fits the operation", () => {
  /** The store's own connection, capped at its current size: its next write that needs a page fails with SQLITE_FULL. */
  function fillDisk(store: SqliteEventStore): void {
    const db = (store as unknown as { db: { db: DatabaseSync } }).db.db;
    const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count);
    db.exec(`PRAGMA max_page_count = ${pages}`);
  }
  /** Text that does not compress, so a body of it takes its length in pages. */
  const noise = (bytes: number) => randomBytes(bytes).toString("base64");

  it("a full disk while creating a run says to start it again; while appending, to resume it", async () => {
    const store = new SqliteEventStore({ file: tempStoreFile("full") });
    try {
      await store.createRun(started("a1"));
      fillDisk(store);
      const create = await store.createRun(started("b3", noise(64 * 1024))).catch((error: unknown) => error);
      expect(create).toBeInstanceOf(PermanentError);
      expect(create).toMatchObject({ runId: "b3" });
      expect((create as Error).message).toMatch(
        /the disk holding it is full: free space there, then start the run again/,
      );
      expect(await store.getHead("b3")).toBeUndefined();
      const append = await store.append("a1", message(2, noise(64 * 1024))).catch((error: unknown) => error);
      expect(append).toMatchObject({ runId: "a1", seq: 2 });
      expect((append as Error).message).toMatch(/free space there, then resume the run/);
    } finally {
      await store.close();
    }
  });

  it("a damaged page met reading a run names the run", async () => {
    const file = tempStoreFile("damaged");
    const store = new SqliteEventStore({ file });
    await store.createRun(started("big"));
    for (let seq = 2; seq <= 120; seq++) await store.append("big", message(seq, noise(3000)));
    await store.close();
    // Garbage over pages in the middle of the file, where the run's rows are.
    const pages = Math.floor(statSync(file).size / 4096);
    const fd = openSync(file, "r+");
    for (let page = Math.floor(pages / 3); page < Math.floor((2 * pages) / 3); page++)
      writeSync(fd, randomBytes(4096), 0, 4096, page * 4096);
    closeSync(fd);
    const reopened = new SqliteEventStore({ file, warn: () => {} });
    try {
      const error = await reopened.read("big").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PermanentError);
      expect(error).toMatchObject({ runId: "big" });
      expect((error as Error).message).toMatch(/damaged/);
    } finally {
      await reopened.close();
    }
  });
});
