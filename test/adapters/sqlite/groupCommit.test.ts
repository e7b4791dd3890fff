import { afterEach, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../../lib/adapters/sqlite/connection.ts";
import { GroupCommit, MAX_BATCH_ROWS } from "../../../lib/adapters/sqlite/groupCommit.ts";
import { encodeEventRow } from "../../../lib/adapters/sqlite/log.ts";
import { type DatabaseSync, loadNodeSqlite } from "../../../lib/adapters/sqlite/nodeSqlite.ts";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { ConflictError, RetryableError, RunlogError } from "../../../lib/core/errors.ts";
import { openRawSqlite } from "../../contract/sqliteRaw.ts";
import { tempStoreFile } from "./helpers.ts";
import { message, started } from "./support.ts";

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

function openStore(label: string, busyTimeoutMs?: number) {
  const store = new SqliteEventStore({
    file: tempStoreFile(label),
    ...(busyTimeoutMs ? { busyTimeoutMs } : {}),
  });
  open.push(store);
  const raw: DatabaseSync = openRawSqlite(store.file);
  open.push(raw);
  const seqsOf = (runId: string) =>
    raw
      .prepare("SELECT seq FROM events WHERE run_id = ? ORDER BY seq")
      .all(runId)
      .map((row) => Number(row.seq));
  return { store, raw, seqsOf };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("appends made together", () => {
  it("to many runs all resolve, and every run has all its rows in order", async () => {
    const { store, seqsOf } = openStore("many");
    const runs = range(1, 40).map((i) => `run-${i}`);
    await Promise.all(runs.map((runId) => store.createRun(started(runId))));
    // Each run's appends queued in seq order, all runs at once.
    await Promise.all(runs.flatMap((runId) => range(2, 25).map((seq) => store.append(runId, message(seq)))));
    for (const runId of runs) expect(seqsOf(runId)).toEqual(range(1, 25));
    expect((await store.read("run-7")).map((e) => e.seq)).toEqual(range(1, 25));
  });

  it("of the same seq of one run: exactly one succeeds, the other is a ConflictError, and the winner's event is stored", async () => {
    const { store } = openStore("same-seq");
    await store.createRun(started("r"));
    const texts = ["first writer", "second writer"];
    const settled = await Promise.allSettled(texts.map((text) => store.append("r", message(2, text))));
    const won = settled.flatMap((s, i) => (s.status === "fulfilled" ? [texts[i]] : []));
    const lost = settled.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toBeInstanceOf(ConflictError);
    expect(lost[0]).toMatchObject({ runId: "r", seq: 2 });
    const stored = await store.read("r", 1);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ type: "user_message", text: won[0] });
  });

  it("conflict with a committed row, and the rest of the batch commits", async () => {
    const { store, seqsOf } = openStore("committed");
    await store.createRun(started("r"));
    await store.createRun(started("s"));
    await store.append("r", message(2, "kept"));
    const settled = await Promise.allSettled([
      store.append("r", message(2, "late")),
      store.append("s", message(2)),
      store.append("r", message(3)),
    ]);
    expect(settled.map((s) => s.status)).toEqual(["rejected", "fulfilled", "fulfilled"]);
    expect((settled[0] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
    expect(seqsOf("r")).toEqual([1, 2, 3]);
    expect(seqsOf("s")).toEqual([1, 2]);
    expect((await store.read("r", 1))[0]).toMatchObject({ text: "kept" });
  });

  it("fail all together when a statement of the batch fails: every caller rejected, nothing of the batch stored", async () => {
    const { store, raw, seqsOf } = openStore("failing");
    for (const runId of ["a", "bad", "c"]) await store.createRun(started(runId));
    raw.exec(
      "CREATE TRIGGER refuse_bad BEFORE INSERT ON events WHEN NEW.run_id = 'bad' BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
    );
    // "a" is inserted before the failing row and "c" after it, in the same transaction.
    const settled = await Promise.allSettled(
      ["a", "bad", "c"].map((runId) => store.append(runId, message(2))),
    );
    const reasons = settled.map((s) => (s.status === "rejected" ? s.reason : undefined));
    expect(reasons.map((r) => r instanceof RunlogError)).toEqual([true, true, true]);
    expect(reasons.map((r) => [r.runId, r.seq])).toEqual([
      ["a", 2],
      ["bad", 2],
      ["c", 2],
    ]);
    for (const reason of reasons) expect(String(reason.cause)).toContain("injected failure");
    for (const runId of ["a", "bad", "c"]) expect(seqsOf(runId)).toEqual([1]);
    // Alone, an append is one statement without a transaction around it: it fails the same way.
    const alone = await store.append("bad", message(2)).catch((e: unknown) => e);
    expect(alone).toMatchObject({ runId: "bad", seq: 2 });
    expect(String((alone as Error).cause)).toContain("injected failure");

    raw.exec("DROP TRIGGER refuse_bad");
    await Promise.all(["a", "bad", "c"].map((runId) => store.append(runId, message(2))));
    for (const runId of ["a", "bad", "c"]) expect(seqsOf(runId)).toEqual([1, 2]);
  });

  it("fail all as retryable when another writer holds the lock past the busy timeout, and can be made again", async () => {
    const { store, raw, seqsOf } = openStore("busy", 30);
    for (const runId of ["a", "b"]) await store.createRun(started(runId));
    raw.exec("BEGIN IMMEDIATE");
    const settled = await Promise.allSettled(["a", "b"].map((runId) => store.append(runId, message(2))));
    raw.exec("ROLLBACK");
    for (const s of settled) expect(s.status === "rejected" && s.reason).toBeInstanceOf(RetryableError);
    expect(settled.map((s) => (s as PromiseRejectedResult).reason.runId)).toEqual(["a", "b"]);
    expect([seqsOf("a"), seqsOf("b")]).toEqual([[1], [1]]);
    await Promise.all(["a", "b"].map((runId) => store.append(runId, message(2))));
    expect([seqsOf("a"), seqsOf("b")]).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });
});

describe("GroupCommit", () => {
  function openCommits(label: string) {
    const db = new SqliteConnection({ file: tempStoreFile(label) });
    open.push(db);
    return { db, commits: new GroupCommit(db) };
  }

  it("commits 200 concurrent appends in far fewer than 200 transactions", async () => {
    const { commits } = openCommits("count");
    await Promise.all(
      range(1, 200).map(async (i) => commits.append(await encodeEventRow(`run-${i}`, message(1)))),
    );
    expect(commits.commits).toBeGreaterThanOrEqual(1);
    expect(commits.commits).toBeLessThanOrEqual(4);
  });

  it("bounds a batch: rows queued together beyond MAX_BATCH_ROWS take one commit more per bound", async () => {
    const { db, commits } = openCommits("bound");
    const rows = await Promise.all(
      range(1, 2 * MAX_BATCH_ROWS + 10).map((seq) => encodeEventRow("r", message(seq))),
    );
    await Promise.all(rows.map((row) => commits.append(row)));
    expect(commits.commits).toBe(3);
    const seqs = db.attempt("count", () => db.statement("SELECT seq FROM events ORDER BY seq").all());
    expect(seqs.map((row) => Number(row.seq))).toEqual(range(1, 2 * MAX_BATCH_ROWS + 10));
  });
});

describe("the head's writes made together", () => {
  /**
   * Write transactions (so fsyncs) made while `work` runs: each BEGIN, and each write statement
   * made outside one (its own transaction), counted on node:sqlite itself.
   */
  async function commitsDuring(work: () => Promise<unknown>): Promise<number> {
    const sqlite = loadNodeSqlite() as unknown as {
      DatabaseSync: { prototype: { exec(sql: string): unknown } };
      StatementSync: { prototype: { run(...params: unknown[]): unknown; readonly sourceSQL: string } };
    };
    const database = sqlite.DatabaseSync.prototype;
    const statement = sqlite.StatementSync.prototype;
    const { exec } = database;
    const { run } = statement;
    let inTransaction = false;
    let commits = 0;
    database.exec = function (this: unknown, sql: string) {
      if (/^BEGIN/i.test(sql)) {
        inTransaction = true;
        commits++;
      } else if (/^(COMMIT|ROLLBACK)/i.test(sql)) inTransaction = false;
      return exec.call(this, sql);
    };
    statement.run = function (this: { sourceSQL: string }, ...params: unknown[]) {
      if (!inTransaction && /^\s*(INSERT|UPDATE|DELETE)/i.test(this.sourceSQL)) commits++;
      return run.apply(this, params);
    };
    try {
      await work();
      return commits;
    } finally {
      database.exec = exec;
      statement.run = run;
    }
  }

  it("of 100 runs starting, claiming and ending at once commit in a few transactions, each exact", async () => {
    const { store, raw } = openStore("heads");
    const runs = range(1, 100).map((i) => `run-${i}`);
    const lease = (runId: string) => ({ owner: `exec-${runId}`, until: Date.now() + 60_000 });
    expect(
      await commitsDuring(() => Promise.all(runs.map((runId) => store.createRun(started(runId))))),
    ).toBeLessThanOrEqual(4);
    expect(
      await commitsDuring(() => Promise.all(runs.map((runId) => store.claimLease(runId, lease(runId), 0)))),
    ).toBeLessThanOrEqual(4);
    // A second claimer at the same version loses: the compare-and-set holds inside a batch too.
    await expect(
      store.claimLease("run-1", { owner: "other", until: Date.now() + 60_000 }, 0),
    ).rejects.toThrow(/another executor claimed it first/);
    const released = await Promise.all(
      runs.map((runId) => store.releaseLease(runId, `exec-${runId}`, { status: "completed", lastSeq: 1 })),
    );
    expect(released.every(Boolean)).toBe(true);
    expect(await store.releaseLease("run-2", "exec-run-2", { status: "failed" })).toBe(false);
    const heads = raw.prepare("SELECT status, lease_owner FROM heads ORDER BY run_id").all();
    expect(heads).toHaveLength(100);
    expect(heads.every((head) => head.status === "completed" && head.lease_owner === null)).toBe(true);
  });
});
