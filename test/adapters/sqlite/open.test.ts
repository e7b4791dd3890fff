import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../../lib/adapters/sqlite/schema.ts";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { PermanentError, RetryableError } from "../../../lib/core/errors.ts";
import { openRawSqlite } from "../../contract/sqliteRaw.ts";
import { startWorker, tempStoreFile } from "./helpers.ts";
import { message, started } from "./support.ts";

const loader = fileURLToPath(new URL("../../../lib/adapters/sqlite/nodeSqlite.ts", import.meta.url));

/** Run an ES module snippet in a fresh Node process (with tsx), returning its stderr. */
function stderrOf(code: string): string {
  const out = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    encoding: "utf8",
  });
  expect(out.status, out.stderr).toBe(0);
  return out.stderr;
}

/** A store file made from the frozen fixture `name`.sql: a file an older runlog wrote. */
function fixtureFile(name: string): string {
  const file = tempStoreFile(name);
  const raw = openRawSqlite(file);
  raw.exec(readFileSync(new URL(`./fixtures/${name}.sql`, import.meta.url), "utf8"));
  raw.close();
  return file;
}

describe("opening the store", () => {
  it("prints nothing to stderr in a fresh process, while node:sqlite itself still warns", async () => {
    const file = tempStoreFile("quiet");
    const store = new SqliteEventStore({ file });
    await store.createRun(started("r"));
    await store.close();
    const worker = startWorker(file, "read", "r");
    const { code, stderr } = await worker.exit;
    expect(code).toBe(0);
    expect(worker.lines).toEqual(["1"]);
    expect(stderr).toBe("");
    // Without the loader, this Node prints the warning: the check above is not vacuous.
    expect(stderrOf('process.getBuiltinModule("node:sqlite");')).toMatch(/ExperimentalWarning: SQLite/);
  });

  it("leaves every other warning alone", () => {
    const code = `import { loadNodeSqlite } from ${JSON.stringify(loader)};
      loadNodeSqlite();
      process.emitWarning("something else is experimental", "ExperimentalWarning");`;
    const stderr = stderrOf(code);
    expect(stderr).toMatch(/ExperimentalWarning: something else is experimental/);
    expect(stderr).not.toMatch(/SQLite/);
  });

  it("refuses a file written by a newer schema, naming the file", () => {
    const file = tempStoreFile("schema");
    new SqliteEventStore({ file }).close();
    const raw = openRawSqlite(file);
    raw.exec("PRAGMA user_version = 99");
    raw.close();
    expect(() => new SqliteEventStore({ file })).toThrow(PermanentError);
    expect(() => new SqliteEventStore({ file })).toThrow(/schema version 99/);
    // The data dir named is unusable, as a file or an unwritable one is: bad input (the CLI's exit 2).
    expect(() => new SqliteEventStore({ file })).toThrow(
      expect.objectContaining({ name: "InvalidInputError", field: "dataDir" }),
    );
  });

  it("opens a file of schema version 1, keeping its runs, and upgrades it to keep auto-resumes", async () => {
    const file = fixtureFile("schema-v1");
    const store = new SqliteEventStore({ file });
    expect((await store.read("old")).map((e) => e.seq)).toEqual([1, 2]);
    const head = await store.getHead("old");
    expect(head).toMatchObject({
      status: "running",
      lastSeq: 2,
      leaseVersion: 1,
      lease: { owner: "worker-1" },
    });
    expect(head?.autoResumes).toBeUndefined();
    await store.claimLease("old", { owner: "sweeper", until: Date.now() + 60_000 }, 1, {
      count: 1,
      lastAt: 5,
    });
    expect((await store.getHead("old"))?.autoResumes).toEqual({ count: 1, lastAt: 5 });
    await store.close();
    const check = openRawSqlite(file);
    expect(Number(check.prepare("PRAGMA user_version").get()?.user_version)).toBe(SCHEMA_VERSION);
    check.close();
    // Opening it again (upgraded already) changes nothing.
    const again = new SqliteEventStore({ file });
    expect((await again.getHead("old"))?.autoResumes).toEqual({ count: 1, lastAt: 5 });
    await again.close();
  });

  it("opens a file of schema version 2 and records the parents of the forks it holds, compressed or not", async () => {
    const file = fixtureFile("schema-v2");
    const store = new SqliteEventStore({ file });
    const forks = await store.listRuns({ parent: "parent" });
    // Newest update first; the fork whose seq 1 does not decode is left without a parent.
    expect(forks.runs.map((head) => [head.runId, head.parent])).toEqual([
      ["fork-big", { runId: "parent", seq: 3 }],
      ["fork-small", { runId: "parent", seq: 2 }],
    ]);
    expect((await store.getHead("other"))?.parent).toBeUndefined();
    expect((await store.read("parent")).map((e) => e.seq)).toEqual([1, 2, 3]);
    await expect(store.read("fork-corrupt")).rejects.toThrow(/seq 1/);
    // A fork made after the upgrade is listed beside them.
    await store.createRun({ ...started("fork-new"), parent: { runId: "parent", seq: 1 } });
    expect((await store.listRuns({ parent: "parent" })).runs.map((head) => head.runId)).toEqual([
      "fork-new",
      "fork-big",
      "fork-small",
    ]);
    await store.close();
  });

  it("deletes the runs whose expiry has passed, and keeps the others", async () => {
    const file = tempStoreFile("expired");
    const store = new SqliteEventStore({ file });
    for (const runId of ["gone", "kept", "later"]) {
      await store.createRun(started(runId));
      await store.append(runId, message(2));
    }
    await store.expire("gone", new Date(Date.now() - 1000));
    await store.expire("later", new Date(Date.now() + 86_400_000));
    await store.close();
    const again = new SqliteEventStore({ file });
    const raw = openRawSqlite(file);
    const count = (table: string, runId: string) =>
      Number(raw.prepare(`SELECT count(*) AS n FROM ${table} WHERE run_id = ?`).get(runId)?.n);
    expect([count("heads", "gone"), count("events", "gone")]).toEqual([0, 0]);
    for (const runId of ["kept", "later"])
      expect([count("heads", runId), count("events", runId)]).toEqual([1, 2]);
    raw.close();
    await again.close();
  });

  it("fails a write as retryable when another process holds the write lock past the busy timeout", async () => {
    const file = tempStoreFile("busy");
    const store = new SqliteEventStore({ file, busyTimeoutMs: 100 });
    await store.createRun(started("r"));
    const raw = openRawSqlite(file);
    raw.exec("BEGIN IMMEDIATE");
    await expect(store.append("r", message(2))).rejects.toBeInstanceOf(RetryableError);
    raw.exec("ROLLBACK");
    await store.append("r", message(2));
    expect((await store.read("r")).map((e) => e.seq)).toEqual([1, 2]);
    raw.close();
    await store.close();
  });
});
