import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { CorruptEventError, InvalidInputError, NotFoundError } from "../../lib/core/errors.ts";
import { openRawSqlite } from "../contract/sqliteRaw.ts";
import { cleanup, script, tempDataDir, testEnv } from "../support/cli.ts";

/**
 * A log damaged behind runlog's back where only a reader of the whole log sees it (an event gone
 * from the middle, before the tail that resume-point and a message read), and one whose
 * `run_started` is gone. Every reader that sees the damage names it the same way, and once an
 * execution has seen it the run rests `malformed`: nothing more is written into it.
 */
const dir = tempDataDir("damaged-log");
let local: LocalRunlog;
beforeAll(async () => {
  local = await openLocal({ dataDir: dir, env: testEnv() });
});
afterAll(async () => {
  await local.close();
  await cleanup(dir);
});

const NOTE = { toolCalls: [{ name: "write_note", arguments: { text: "remember" } }] };

/** A completed run of two generations (a tool turn, then a message answered): seq 1 to 7. */
async function twoGenerations(runId: string) {
  const model = script(dir, runId, [NOTE, { text: "Done" }, { text: "Again" }, { text: "More" }]);
  await local.runlog.start({ agent: "demo", input: "go", runId, model });
  await local.runlog.send(runId, "and then?");
  return (await local.runlog.events(runId)).map((event) => event.seq);
}

/** Another process on the same store: one that has not cached the log as it was before the damage. */
async function afresh() {
  await local.close();
  local = await openLocal({ dataDir: dir, env: testEnv() });
}

function sql(statement: string, ...params: string[]) {
  const raw = openRawSqlite(`${dir}/runlog.db`);
  try {
    return raw.prepare(statement).all(...params);
  } finally {
    raw.close();
  }
}
const storedSeqs = (runId: string) =>
  sql("SELECT seq FROM events WHERE run_id = ? ORDER BY seq", runId).map((row) => Number(row.seq));
const head = (runId: string) =>
  sql("SELECT status, last_seq, lease_owner FROM heads WHERE run_id = ?", runId)[0] as {
    status: string;
    last_seq: number;
    lease_owner: string | null;
  };

describe("an event gone from the middle of a log", () => {
  it("the message that meets it is the last write: the run rests malformed, and every reader then says where", async () => {
    const seqs = await twoGenerations("gap");
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
    sql("DELETE FROM events WHERE run_id = 'gap' AND seq = 3");
    await afresh();
    // Only the tail is read before the message is taken: the damage is further back.
    expect(await local.runlog.resumePoint("gap")).toMatchObject({ resumable: false, reason: "completed" });

    const sent = await local.runlog.send("gap", "one more");
    expect(sent.status).toBe("malformed");
    expect(storedSeqs("gap")).toEqual([1, 2, 4, 5, 6, 7, 8]);
    // The execution that read the whole log rests it, lease given back, at the log's last seq.
    expect(head("gap")).toEqual({ status: "malformed", last_seq: 8, lease_owner: null });

    expect(await local.runlog.resumePoint("gap")).toMatchObject({
      resumable: false,
      reason: "malformed",
      seq: 3,
    });
    await expect(local.runlog.send("gap", "still there?")).rejects.toBeInstanceOf(CorruptEventError);
    await expect(local.runlog.resume({ runId: "gap" })).rejects.toBeInstanceOf(CorruptEventError);
    expect(storedSeqs("gap")).toEqual([1, 2, 4, 5, 6, 7, 8]);
    expect((await local.runlog.list()).runs.find((run) => run.runId === "gap")?.status).toBe("malformed");
  });

  it("a body that cannot be read: the first message is the last write, and the run rests malformed", async () => {
    await twoGenerations("unreadable");
    sql(
      "UPDATE events SET enc = 'identity', body = CAST('{not json' AS BLOB) WHERE run_id = 'unreadable' AND seq = 3",
    );
    await afresh();
    await expect(local.runlog.send("unreadable", "one more")).rejects.toBeInstanceOf(Error);
    expect(head("unreadable")).toMatchObject({ status: "malformed", lease_owner: null });
    const written = storedSeqs("unreadable");
    await expect(local.runlog.send("unreadable", "again")).rejects.toBeInstanceOf(CorruptEventError);
    await expect(local.runlog.resume({ runId: "unreadable" })).rejects.toBeInstanceOf(CorruptEventError);
    expect(await local.runlog.resumePoint("unreadable")).toMatchObject({ reason: "malformed", seq: 3 });
    expect(storedSeqs("unreadable")).toEqual(written);
  });

  it("a fork names the last seq as the end of the range, not the count of events", async () => {
    await twoGenerations("gap-fork");
    sql("DELETE FROM events WHERE run_id = 'gap-fork' AND seq = 3");
    await afresh();
    const past = local.runlog.fork({ runId: "gap-fork", atSeq: 8 });
    await expect(past).rejects.toBeInstanceOf(InvalidInputError);
    await expect(past).rejects.toThrow("from 1 to 7 (the last seq of run gap-fork), got 8");
    await expect(local.runlog.fork({ runId: "gap-fork", atSeq: 7 })).rejects.toThrow(
      "run gap-fork is malformed at seq 3",
    );
    const before = await local.runlog.fork({ runId: "gap-fork", atSeq: 2, forkId: "gap-fork-early" });
    expect(before.runId).toBe("gap-fork-early");
  });

  it("a run rested malformed goes on once its log is mended", async () => {
    await twoGenerations("mended");
    const [kept] = sql("SELECT * FROM events WHERE run_id = 'mended' AND seq = 3");
    sql("DELETE FROM events WHERE run_id = 'mended' AND seq = 3");
    await afresh();
    expect((await local.runlog.send("mended", "one more")).status).toBe("malformed");
    const row = kept as Record<string, string>;
    sql(
      "INSERT INTO events (run_id, seq, type, at, enc, body) VALUES (?, ?, ?, ?, ?, ?)",
      row.run_id!,
      row.seq!,
      row.type!,
      row.at!,
      row.enc!,
      row.body!,
    );
    await afresh();
    expect(await local.runlog.resumePoint("mended")).toMatchObject({ resumable: true, kind: "call_model" });
    expect(await local.runlog.resume({ runId: "mended" })).toMatchObject({ status: "completed" });
  });
});

describe("a run whose run_started is gone", () => {
  it("is malformed at seq 1 to every reader of its log, never a run that is not there", async () => {
    await twoGenerations("headless");
    sql("DELETE FROM events WHERE run_id = 'headless' AND seq = 1");
    await afresh();
    const readers: [string, () => Promise<unknown>][] = [
      ["events", () => local.runlog.events("headless")],
      ["eventPage", () => local.runlog.eventPage("headless", { maxBytes: 1 << 20 })],
      ["event 1", () => local.runlog.event("headless", 1)],
      ["fork", () => local.runlog.fork({ runId: "headless", atSeq: 4 })],
      ["send", () => local.runlog.send("headless", "hello?")],
    ];
    for (const [name, read] of readers) {
      const error = await read().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, name).toBeInstanceOf(CorruptEventError);
      expect((error as CorruptEventError).seq, name).toBe(1);
      expect((error as Error).message, name).toContain("run_started) is missing; the log starts at seq 2");
    }
    expect(await local.runlog.resumePoint("headless")).toMatchObject({ reason: "malformed", seq: 1 });
    // Events after the log's end of a run that exists are none, not an error; another seq reads as stored.
    expect(await local.runlog.events("headless", 50)).toEqual([]);
    expect((await local.runlog.event("headless", 2)).seq).toBe(2);
    expect(storedSeqs("headless")).toEqual([2, 3, 4, 5, 6, 7]);
  });

  it("without a head either, it is no run: the copy of a fork not created yet", async () => {
    await twoGenerations("nothing");
    sql("DELETE FROM events WHERE run_id = 'nothing' AND seq = 1");
    sql("DELETE FROM heads WHERE run_id = 'nothing'");
    await afresh();
    await expect(local.runlog.events("nothing")).rejects.toBeInstanceOf(NotFoundError);
    await expect(local.runlog.fork({ runId: "nothing", atSeq: 3 })).rejects.toBeInstanceOf(NotFoundError);
  });
});
