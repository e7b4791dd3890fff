import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseSync } from "../../lib/adapters/sqlite/nodeSqlite.ts";
import { SqliteEventStore, sqliteFile } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import { RunlogError } from "../../lib/core/errors.ts";
import type { NewEvent, RunEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { openRawSqlite } from "../contract/sqliteRaw.ts";
import { cleanup, library, runlog, runlogJson, tempDataDir } from "../support/cli.ts";
import { tally } from "./support/tally.ts";

/**
 * Stored events broken behind runlog's back, on the SQLite file itself: an
 * unknown schema version, a body that is not JSON, a gap, a body for another
 * seq, a row with an empty body, a result for no call. Every reader says
 * `malformed` naming the seq; nothing writes, nothing crashes, nothing is overwritten.
 */
const dir = tempDataDir("reliability-corrupt");
let raw: DatabaseSync;
let store: SqliteEventStore;
let cases = 0;
let commands = 0;

beforeAll(async () => {
  store = new SqliteEventStore({ file: sqliteFile(dir) });
  raw = openRawSqlite(store.file);
});
afterAll(async () => {
  tally("corrupt stored events", { cases, commands });
  raw.close();
  await store.close();
  await cleanup(dir);
});

const CALL = { id: "call_0_0", name: "write_note", arguments: '{"text":"never"}' };
/** An interrupted run: a note started and never answered, so resuming it would write. */
const LOG: NewEvent[] = [
  { type: "model_response", text: "", toolCalls: [CALL], stop: "tool_calls" },
  { type: "tool_started", callId: CALL.id, name: CALL.name },
];

async function seed(runId: string): Promise<RunEvent[]> {
  const at = new Date();
  const first = stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    1,
    at,
  );
  await store.createRun(first as RunStarted);
  const events = [first, ...LOG.map((event, i) => stamp(event, i + 2, at))];
  for (const event of events.slice(1)) await store.append(runId, event);
  return events;
}

/** Store a body (text, or an empty blob for none) at `seq`, replacing what is there. */
const putRaw = async (runId: string, seq: number, body: string | undefined) =>
  raw
    .prepare(
      "INSERT OR REPLACE INTO events (run_id, seq, type, at, enc, body) VALUES (?, ?, 'user_message', '2020-01-01T00:00:00Z', 'identity', ?)",
    )
    .run(runId, seq, body ?? new Uint8Array());

/** Every event row of a run exactly as stored (the head may be repaired; events never). */
async function items(runId: string) {
  return raw.prepare("SELECT * FROM events WHERE run_id = ? ORDER BY seq").all(runId);
}

const CASES: [string, number, (runId: string, log: RunEvent[]) => Promise<unknown>][] = [
  ["an unknown schema version", 2, (id, log) => putRaw(id, 2, JSON.stringify({ ...log[1], v: 2 }))],
  ["a body that is not JSON", 2, (id) => putRaw(id, 2, "{not json")],
  ["a body for another seq", 3, (id, log) => putRaw(id, 3, JSON.stringify({ ...log[2], seq: 7 }))],
  ["a row with an empty body", 3, (id) => putRaw(id, 3, undefined)],
  ["a gap in seq", 2, async (id) => raw.prepare("DELETE FROM events WHERE run_id = ? AND seq = 2").run(id)],
  [
    "its first event gone (the head kept)",
    1,
    async (id) => raw.prepare("DELETE FROM events WHERE run_id = ? AND seq = 1").run(id),
  ],
  [
    "a gap at the tail",
    4,
    (id, log) =>
      putRaw(id, 5, JSON.stringify(stamp({ type: "user_message", text: "late" }, 5, new Date(log[0]!.at)))),
  ],
  [
    "a result that answers no call",
    4,
    (id) =>
      putRaw(
        id,
        4,
        JSON.stringify(
          stamp(
            { type: "tool_result", callId: "ghost", name: "x", content: "", isError: false },
            4,
            new Date(),
          ),
        ),
      ),
  ],
];

describe.each(CASES)("a stored log with %s", (label, seq, corrupt) => {
  const runId = `corrupt-${label.replace(/\W+/g, "-")}`;

  it(`is malformed at seq ${seq} for every reader, and nothing writes to it`, async () => {
    await corrupt(runId, await seed(runId));
    const before = await items(runId);
    const { runlog: lib } = await library(dir);

    expect(await lib.resumePoint(runId)).toMatchObject({ resumable: false, reason: "malformed", seq });
    const point = await runlogJson(dir, ["resume-point", runId]);
    expect(point.code, point.stderr).toBe(0);
    expect(point.json).toMatchObject({ resumable: false, reason: "malformed", seq });
    expect(point.json.description).toMatch(new RegExp(`seq ${seq}`));

    const resumed = await runlog(dir, ["resume", runId]);
    expect(resumed.code).toBe(1);
    expect(`${resumed.stdout}${resumed.stderr}`).toMatch(/malformed|corrupt/);
    expect(resumed.stderr).not.toMatch(/^\s+at /m);
    commands += 2;

    // The library's writers refuse too, with runlog errors, never a crash.
    for (const attempt of [
      () => lib.resume({ runId }),
      () => lib.send(runId, "hello?"),
      () => lib.cancel(runId, { by: "ops" }),
      () => lib.approve(runId, CALL.id, { by: "ops" }),
      () => lib.fork({ runId, forkId: `${runId}-fork` }),
    ]) {
      const outcome = await attempt().catch((error: unknown) => error);
      if (outcome instanceof Error) expect(outcome).toBeInstanceOf(RunlogError);
      else expect(outcome).toMatchObject({ status: "malformed" });
      commands++;
    }
    expect(await items(runId)).toEqual(before);
    expect(await store.read(`${runId}-fork`).catch(() => [])).toEqual([]);
    cases++;
  });
});
