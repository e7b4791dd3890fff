/**
 * What the SQLite store costs on this machine, outside the test suite:
 * - ms per append (one event of about 2 KB, one commit each) with
 *   synchronous=FULL (the default: an acknowledged event survives power loss)
 *   and with NORMAL (survives a crash of the process, not of the machine);
 * - opening the store and reading a 1000-event log from a fresh Node process,
 *   running the store compiled to one ES module (as an installed package would).
 * Run: node --import tsx bench/src/sqliteStore.ts [--appends N] [--spawns N]
 * The files go to the OS temporary folder (say where with TMPDIR): put it on the disk you care about.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { Durability } from "../../lib/adapters/sqlite/connection.ts";
import { SqliteEventStore, sqliteFile } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import type { RunEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const APPENDS = arg("--appends", 500);
const SPAWNS = arg("--spawns", 15);

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const fmt = (ms: number) => ms.toFixed(2);

const started = (runId: string) =>
  stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    1,
    new Date(),
  ) as RunStarted;

/** Event `seq` of a turn-like log: every other one a 2 KB prose-like tool result, the rest short. */
function event(seq: number): RunEvent {
  const text =
    seq % 2 === 0
      ? Array.from(
          { length: 30 },
          (_, i) => `line ${i} of event ${seq}: temperature ${(seq * i) % 37} C, clear`,
        )
          .join("\n")
          .slice(0, 2048)
      : `short message ${seq}`;
  return stamp({ type: "user_message", text }, seq, new Date());
}

async function appendCost(durability: Durability): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), `runlog-bench-${durability}-`));
  const store = new SqliteEventStore({ file: sqliteFile(dir), durability });
  await store.createRun(started("r"));
  const times: number[] = [];
  for (let seq = 2; seq <= APPENDS + 1; seq++) {
    const e = event(seq);
    const t = process.hrtime.bigint();
    await store.append("r", e);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return times;
}

interface ChildTimes {
  total: number;
  load: number;
  open: number;
  read: number;
}

async function freshProcessRead(): Promise<{ inProcess: ChildTimes[]; wall: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), "runlog-bench-read-"));
  const file = sqliteFile(dir);
  const store = new SqliteEventStore({ file, durability: "normal" });
  await store.createRun(started("r"));
  for (let seq = 2; seq <= 1000; seq++) await store.append("r", event(seq));
  await store.close();
  const entry = join(dir, "child.ts");
  writeFileSync(
    entry,
    `const t0 = performance.now();
const { SqliteEventStore } = await import(${JSON.stringify(join(ROOT, "lib/adapters/sqlite/sqliteEventStore.ts"))});
const t1 = performance.now();
const store = new SqliteEventStore({ file: process.argv[2] });
const t2 = performance.now();
const events = await store.read("r");
const t3 = performance.now();
if (events.length !== 1000) throw new Error("read " + events.length + " events");
console.log(JSON.stringify({ total: t3 - t0, load: t1 - t0, open: t2 - t1, read: t3 - t2 }));`,
  );
  const outfile = join(dir, "child.mjs");
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
  });
  const inProcess: ChildTimes[] = [];
  const wall: number[] = [];
  for (let i = 0; i < SPAWNS; i++) {
    const t = process.hrtime.bigint();
    const out = spawnSync(process.execPath, [outfile, file], { encoding: "utf8" });
    wall.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (out.status !== 0 || out.stderr !== "") throw new Error(`child failed: ${out.stderr}`);
    inProcess.push(JSON.parse(out.stdout) as ChildTimes);
  }
  rmSync(dir, { recursive: true, force: true });
  return { inProcess, wall };
}

console.log(`node ${process.version}, files in ${tmpdir()}, ${APPENDS} appends per setting`);
for (const durability of ["full", "normal"] as const) {
  const times = await appendCost(durability);
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  console.log(
    `append, synchronous=${durability.toUpperCase()}: median ${fmt(quantile(times, 0.5))} ms, ` +
      `p90 ${fmt(quantile(times, 0.9))} ms, mean ${fmt(mean)} ms`,
  );
}
const { inProcess, wall } = await freshProcessRead();
const median = (key: keyof ChildTimes) =>
  fmt(
    quantile(
      inProcess.map((t) => t[key]),
      0.5,
    ),
  );
console.log(
  `fresh process (${SPAWNS} spawns, medians): load the store module + open + read 1000 events ${median("total")} ms ` +
    `(load ${median("load")}, open ${median("open")}, read ${median("read")}); ` +
    `whole process incl. Node start ${fmt(quantile(wall, 0.5))} ms`,
);
