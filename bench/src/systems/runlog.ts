/**
 * runlog's local runtime through its public library API: `openLocal` on a data dir (the SQLite
 * store in-process, synced commits, the ASL state machine in-process), an agent with one tool
 * (`defineTool`), and a scripted model file. Every event is a conditional insert acknowledged by the store.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { loadNodeSqlite } from "../../../lib/adapters/sqlite/nodeSqlite.ts";
import { sqliteFile } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { defineTool } from "../../../lib/agents/defineTool.ts";
import { openLocal } from "../../../lib/api/local.ts";
import { gaps, maxRssKb, now, reportAndDie, sizeOnDisk } from "../measure.ts";
import { type ChildReport, FINAL_ANSWER, TOOL_NAME, toolArgs, toolResult, USER_INPUT } from "../workload.ts";

const RUN_ID = "bench-run";

/** N tool turns, then the final answer. */
function writeScript(dir: string, toolTurns: number): string {
  const turns: unknown[] = [];
  for (let k = 0; k < toolTurns; k++)
    turns.push({ toolCalls: [{ name: TOOL_NAME, arguments: toolArgs(k) }] });
  turns.push({ text: FINAL_ANSWER, stop: "stop" });
  const path = join(dir, `script-${toolTurns}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return path;
}

const fetchPage = defineTool({
  name: TOOL_NAME,
  description: "Fetch one page of a document.",
  parameters: z.object({ page: z.number().int().min(0) }),
  idempotent: true,
  run: ({ page }) => toolResult(page),
});

function agents(script: string) {
  return {
    bench: () => ({
      name: "bench",
      instructions: "Fetch the pages the user asks for.",
      tools: [fetchPage],
      // An agent allows DEFAULT_MAX_TURNS (100) unless it says more: N = 1,000 is the point here.
      limits: { maxTurns: 100_000 },
      defaultModel: `scripted:${script}`,
    }),
  };
}

/** Marks the time each tool result is recorded (the observer hears an event once the store acknowledged it). */
function turnMarks() {
  const marks: number[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  return {
    marks,
    observer: {
      appended: (_runId: string, event: { type: string }) => {
        if (event.type !== "tool_result") return;
        marks.push(now());
        for (const w of waiters.splice(0)) {
          if (marks.length >= w.count) w.resolve();
          else waiters.push(w);
        }
      },
    },
    /** Resolves once `count` tool results were recorded by this instance. */
    reached: (count: number) =>
      new Promise<void>((resolve) => {
        if (marks.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
  };
}

/**
 * The run's rows (events and head) in the store's SQLite file, counted as the bytes of their
 * values (text as UTF-8, blobs as their bytes, integers as 8): what the run costs at rest,
 * before SQLite's page overhead.
 */
export async function storedBytes(dataDir: string, runId: string): Promise<{ bytes: number; items: number }> {
  const { DatabaseSync } = loadNodeSqlite();
  const db = new DatabaseSync(sqliteFile(dataDir));
  try {
    const events = db
      .prepare(
        "SELECT count(*) AS n, total(length(CAST(run_id AS BLOB)) + 8 + length(CAST(type AS BLOB)) + " +
          "length(CAST(at AS BLOB)) + length(CAST(enc AS BLOB)) + length(CAST(body AS BLOB))) AS bytes " +
          "FROM events WHERE run_id = ?",
      )
      .get(runId);
    const heads = db
      .prepare(
        "SELECT count(*) AS n, total(length(CAST(run_id AS BLOB)) + length(CAST(agent AS BLOB)) + " +
          "length(CAST(status AS BLOB)) + length(CAST(created_at AS BLOB)) + length(CAST(updated_at AS BLOB)) + " +
          "coalesce(length(CAST(lease_owner AS BLOB)), 0) + 32) AS bytes FROM heads WHERE run_id = ?",
      )
      .get(runId);
    return {
      bytes: Number(events?.bytes ?? 0) + Number(heads?.bytes ?? 0),
      items: Number(events?.n ?? 0) + Number(heads?.n ?? 0),
    };
  } finally {
    db.close();
  }
}

/**
 * Run a script of N+1 tool turns and die (exit 137) the moment the N-th tool result is stored,
 * reporting the N turns' times; the stored bytes are measured by `resume`, before its clock starts.
 */
export async function run(turns: number, dir: string): Promise<ChildReport> {
  const script = writeScript(dir, turns + 1);
  const dataDir = join(dir, "runlog");
  const marks: number[] = [];
  let start = 0;
  const observer = {
    appended: (_runId: string, event: { type: string }) => {
      if (event.type !== "tool_result") return;
      marks.push(now());
      if (marks.length < turns) return;
      reportAndDie({
        system: "runlog",
        mode: "run",
        turns,
        turnMs: gaps(start, marks),
        totalMs: now() - start,
        maxRssKb: maxRssKb(),
      } satisfies ChildReport);
    },
  };
  const local = await openLocal({ dataDir, agents: agents(script), observer });
  start = now();
  const outcome = await local.runlog.start({ agent: "bench", input: USER_INPUT, runId: RUN_ID });
  throw new Error(`runlog: the run ended ${outcome.status} after ${marks.length}/${turns} tool results`);
}

/**
 * In a fresh process: measure what the interrupted run stored, then (clock on) open the library,
 * resume, and time until turn N+1's tool result is stored; then let the run complete.
 */
export async function resume(turns: number, dir: string): Promise<ChildReport> {
  const script = join(dir, `script-${turns + 1}.json`);
  const dataDir = join(dir, "runlog");
  const stored = await storedBytes(dataDir, RUN_ID);
  const onDisk = sizeOnDisk(dataDir);
  const t = turnMarks();
  const start = now();
  const local = await openLocal({ dataDir, agents: agents(script), observer: t.observer });
  const openMs = now() - start;
  const done = local.runlog.resume({ runId: RUN_ID });
  await Promise.race([t.reached(1), done]);
  const resumeMs = now() - start;
  const outcome = await done;
  const fullResumeMs = now() - start;
  await local.close();
  if (t.marks.length !== 1 || outcome.status !== "completed" || outcome.output !== FINAL_ANSWER) {
    throw new Error(`runlog: resume ended ${outcome.status} with ${t.marks.length} new tool results`);
  }
  return {
    system: "runlog",
    mode: "resume",
    turns,
    resumeMs,
    bytesWritten: stored.bytes,
    bytesAtRest: stored.bytes,
    bytesOnDisk: onDisk,
    maxRssKb: maxRssKb(),
    notes: [
      `${stored.items} items (events + head) after ${turns} turns`,
      `resume: openLocal ${openMs.toFixed(1)} ms; to the final answer ${fullResumeMs.toFixed(1)} ms`,
    ],
  };
}
