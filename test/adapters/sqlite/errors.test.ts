import { describe, expect, it } from "vitest";
import { toRunlogError } from "../../../lib/adapters/sqlite/errors.ts";
import { loadNodeSqlite } from "../../../lib/adapters/sqlite/nodeSqlite.ts";
import { PermanentError, RetryableError } from "../../../lib/core/errors.ts";

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
    });
    expect(error).toBeInstanceOf(PermanentError);
    expect(error.message).toBe(
      "append seq 5 of run f1: /data/.runlog/runlog.db: the disk holding it is full: free space there, then resume the run (database or disk is full)",
    );
    expect(error).toMatchObject({ runId: "f1", seq: 5, cause: raw });
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
