/**
 * Issue 31: what a process's first run would pay once, statement preparation included, is paid in
 * openLocal. A store opened for runs prepares every statement a run executes (runSql), so a start,
 * and a resume on a store opened afresh, prepare none. Checked by the statements node:sqlite is
 * asked to prepare, not by time.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod";
import { loadNodeSqlite } from "../../../lib/adapters/sqlite/nodeSqlite.ts";
import { SqliteEventStore, sqliteFile } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { defineTool, type LocalRunlog, openLocal } from "../../../lib/index.ts";

const { DatabaseSync } = loadNodeSqlite();

const dir = mkdtempSync(join(tmpdir(), "runlog-run-statements-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const script = join(dir, "script.json");
writeFileSync(
  script,
  JSON.stringify({
    turns: [
      { toolCalls: [{ name: "fetch_page", arguments: { page: 1 } }] },
      { toolCalls: [{ name: "fetch_page", arguments: { page: 2 } }] },
      { toolCalls: [{ name: "fetch_page", arguments: { page: 3 } }] },
      { text: "done", stop: "stop" },
    ],
  }),
);
const fetchPage = defineTool({
  name: "fetch_page",
  description: "Fetch one page.",
  parameters: z.object({ page: z.number() }),
  run: ({ page }) => `page ${page}`,
});
const agents = {
  reader: () => ({
    name: "reader",
    instructions: "Read.",
    tools: [fetchPage],
    defaultModel: `scripted:${script}`,
  }),
};

/** The SQL node:sqlite is asked to prepare while `work` runs. */
async function preparedDuring<T>(work: () => Promise<T>): Promise<{ result: T; prepared: string[] }> {
  const prepared: string[] = [];
  const prepare = DatabaseSync.prototype.prepare;
  vi.spyOn(DatabaseSync.prototype, "prepare").mockImplementation(function (
    this: InstanceType<typeof DatabaseSync>,
    sql: string,
  ) {
    prepared.push(sql);
    return prepare.call(this, sql);
  });
  try {
    return { result: await work(), prepared };
  } finally {
    vi.restoreAllMocks();
  }
}

const dataDir = join(dir, "data");

/** What `work` prepares on a store just opened by openLocal, and the run's status it returns. */
async function preparedByRun(work: (runlog: LocalRunlog["runlog"]) => Promise<{ status: string }>) {
  const local = await openLocal({ dataDir, agents });
  try {
    const { result, prepared } = await preparedDuring(() => work(local.runlog));
    return { status: result.status, prepared };
  } finally {
    await local.close();
  }
}

describe("a store opened for runs", () => {
  it("prepares at open every statement a start executes", async () => {
    // Two turns, then the budget stops it: the resume below goes on from there.
    const { status, prepared } = await preparedByRun((runlog) =>
      runlog.start({ agent: "reader", input: "read", runId: "stmts", limits: { maxTurns: 2 } }),
    );
    expect(status).toBe("budget_exhausted");
    expect(prepared).toEqual([]);
  });

  it("prepares at open every statement a resume executes, on a store opened afresh", async () => {
    const { status, prepared } = await preparedByRun((runlog) =>
      runlog.resume({ runId: "stmts", limits: { maxTurns: 10 } }),
    );
    expect(status).toBe("completed");
    expect(prepared).toEqual([]);
  });

  it("is what makes the difference: a store opened only to read prepares on first use", async () => {
    const store = new SqliteEventStore({ file: sqliteFile(dataDir) });
    try {
      const { prepared } = await preparedDuring(() => store.getHead("stmts"));
      expect(prepared.length).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
