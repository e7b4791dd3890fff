// A user's script, in plain JavaScript, that imports runlog by its name: shortRuns.ts copies this
// file into a temporary project whose node_modules links the package (its built dist/), and runs
// it in a fresh process: `node child.mjs <mode> <dir> [turns]`. It prints one JSON line.
// Plain JavaScript (no tsx, no type stripping) so a fresh process pays only what a user's would.
import { readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from "node:perf_hooks";

const [mode = "", dir = "", turnsText = "0"] = process.argv.slice(2);
const turns = Number(turnsText);
/** The user's project: the pages and the model scripts the parent wrote. */
const here = import.meta.dirname;

const report = (value) => writeSync(1, `${JSON.stringify(value)}\n`);
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// The workload of bench/src/workload.ts, given by the parent: one fetch_page call a turn, 2 KB each.
const workload = JSON.parse(process.env.RUNLOG_BENCH_WORKLOAD ?? "{}");

/** Page i's 2 KB (workload.ts's toolResult), one file a page that the parent wrote: a tool's own I/O. */
const page = (i) => readFileSync(join(here, "pages", `${i}.txt`), "utf8");

async function library() {
  const started = performance.now();
  const runlog = await import("runlog");
  const { z } = await import("zod");
  const importMs = performance.now() - started;
  const fetchPage = runlog.defineTool({
    name: workload.toolName,
    description: "Fetch one page of a document.",
    parameters: z.object({ page: z.number().int().min(0) }),
    idempotent: true,
    run: (args) => page(args.page),
  });
  /** Agents whose model plays the script at `script` (a file the parent wrote). */
  const agents = (script) => ({
    bench: () => ({
      name: "bench",
      instructions: "Fetch the pages the user asks for.",
      tools: [fetchPage],
      // More turns than a default agent allows: a 1,000-turn run is the point.
      limits: { maxTurns: 100_000 },
      defaultModel: `scripted:${script}`,
    }),
  });
  return { runlog, importMs, agents };
}

const script = (toolTurns, delay = "") => join(here, `script-${toolTurns}${delay}.json`);

/** openLocal, then five 10-turn runs one after the other, each from start() to its stored answer. */
async function inProcess() {
  const { runlog, importMs, agents } = await library();
  let t = performance.now();
  const local = await runlog.openLocal({ dataDir: join(dir, "inproc"), agents: agents(script(turns)) });
  const openMs = performance.now() - t;
  const runMs = [];
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    const outcome = await local.runlog.start({ agent: "bench", input: workload.input, runId: `run-${i}` });
    runMs.push(performance.now() - t);
    check(outcome);
  }
  await local.close();
  report({ importMs, openMs, runMs });
}

/** A fresh process's whole 10-turn run: import, open, run, stored answer, exit. */
async function fresh() {
  const { runlog, agents } = await library();
  const local = await runlog.openLocal({ dataDir: join(dir, "fresh"), agents: agents(script(turns)) });
  check(await local.runlog.start({ agent: "bench", input: workload.input, runId: "fresh" }));
  report({ answerAtMs: performance.now() });
  process.exit(0);
}

/**
 * A script of turns+1 tool turns, killed (exit 137) the moment the turns-th tool result is stored:
 * the run a later `resume` finishes. Reports the turns' times and the CPU they took.
 */
async function kill() {
  const { runlog, agents } = await library();
  const marks = [];
  let start = 0;
  let cpu = 0;
  const observer = {
    appended: (_runId, event) => {
      if (event.type !== "tool_result") return;
      marks.push(performance.now());
      if (marks.length < turns) return;
      const cpuTurnMs = (cpuMs() - cpu) / turns;
      const turnMs = marks.map((m, i) => m - (i === 0 ? start : marks[i - 1]));
      report({ medianTurnMs: median(turnMs), cpuTurnMs, turns: marks.length });
      process.exit(137);
    },
  };
  const local = await runlog.openLocal({
    dataDir: join(dir, "run"),
    agents: agents(script(turns + 1)),
    observer,
  });
  start = performance.now();
  cpu = cpuMs();
  const outcome = await local.runlog.start({ agent: "bench", input: workload.input, runId: "killed" });
  throw new Error(`the run ended ${outcome.status} after ${marks.length} of ${turns} tool results`);
}

/** Resume the killed run to its stored answer: from openLocal, the library already imported. */
async function resume() {
  const { runlog, agents } = await library();
  const start = performance.now();
  const local = await runlog.openLocal({ dataDir: join(dir, "run"), agents: agents(script(turns + 1)) });
  const openMs = performance.now() - start;
  const outcome = await local.runlog.resume({ runId: "killed" });
  const fullResumeMs = performance.now() - start;
  check(outcome);
  report({ openMs, fullResumeMs, answerAtMs: performance.now() });
  process.exit(0);
}

/** Issue 27's resume load: open, the resume point and the whole log, the library already imported. */
async function load() {
  const { runlog } = await library();
  const start = performance.now();
  const local = await runlog.openLocal({ dataDir: join(dir, "run") });
  const point = await local.runlog.resumePoint("killed");
  const events = await local.runlog.events("killed");
  const loadMs = performance.now() - start;
  // The killed run's lease may still be live: the answer may be "running"; it is read all the same.
  if (!point.description || events.length < turns * 3) {
    throw new Error(`resume point ${JSON.stringify(point).slice(0, 200)} after ${events.length} events`);
  }
  await local.close();
  report({ loadMs, events: events.length });
}

/** `runs` runs at once in one process, `turns` tool turns each, the model answering in 50 ms. */
async function concurrent() {
  const runs = Number(process.argv[5] ?? "200");
  const { runlog, agents } = await library();
  const local = await runlog.openLocal({
    dataDir: join(dir, "concurrent"),
    agents: agents(script(turns, "-slow")),
  });
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const cpu = cpuMs();
  const start = performance.now();
  const perRun = await Promise.all(
    Array.from({ length: runs }, async (_, i) => {
      const t = performance.now();
      check(await local.runlog.start({ agent: "bench", input: workload.input, runId: `c-${i}` }));
      return performance.now() - t;
    }),
  );
  const wallMs = performance.now() - start;
  const cpuRunMs = cpuMs() - cpu;
  lag.disable();
  await local.close();
  report({
    runs,
    wallMs,
    medianRunMs: median(perRun),
    cpuMs: cpuRunMs,
    lagP99Ms: lag.percentile(99) / 1e6,
    lagMaxMs: lag.max / 1e6,
  });
}

/** The floor: three synced SQLite inserts of a 2 KB row per turn (WAL, synchronous=FULL), node:sqlite. */
async function floor() {
  process.removeAllListeners("warning"); // node:sqlite's "experimental" warning
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(join(dir, "floor.db"));
  db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  db.exec("CREATE TABLE events (run_id TEXT, seq INTEGER, body TEXT, PRIMARY KEY (run_id, seq))");
  const insert = db.prepare("INSERT INTO events (run_id, seq, body) VALUES (?, ?, ?)");
  const body = page(0);
  const cpuAtStart = cpuMs();
  const turnMs = [];
  let seq = 0;
  for (let turn = 0; turn < turns; turn++) {
    const t = performance.now();
    for (let k = 0; k < 3; k++) insert.run("floor", ++seq, body);
    turnMs.push(performance.now() - t);
  }
  db.close();
  report({ medianTurnMs: median(turnMs), cpuTurnMs: (cpuMs() - cpuAtStart) / turns });
}

function check(outcome) {
  if (outcome.status !== "completed" || outcome.output !== workload.finalAnswer) {
    throw new Error(`the run ended ${outcome.status}: ${JSON.stringify(outcome).slice(0, 300)}`);
  }
}

/**
 * The first run's extra cost, and whether a throwaway run takes it away (bench/src/firstRun.ts):
 * with `warm N` after the turns, a whole run of N tool turns on another data dir first (its own
 * openLocal, closed after); then openLocal and five runs of `turns`, as inProcess. Reports each run's
 * time and the mark-compact (major) collections V8 made during it.
 */
async function firstRuns() {
  const warm = process.argv[5] === "warm";
  const { runlog, agents } = await library();
  /** When each mark-compact started. */
  const majors = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors.push(entry.startTime);
  });
  observer.observe({ entryTypes: ["gc"] });
  let t = performance.now();
  if (warm) {
    const warmTurns = Number(process.argv[6] ?? turns);
    const thrown = await runlog.openLocal({ dataDir: join(dir, "warm"), agents: agents(script(warmTurns)) });
    check(await thrown.runlog.start({ agent: "bench", input: workload.input, runId: "warm" }));
    await thrown.close();
  }
  const warmMs = performance.now() - t;
  const local = await runlog.openLocal({ dataDir: join(dir, "measured"), agents: agents(script(turns)) });
  const spans = [];
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    check(await local.runlog.start({ agent: "bench", input: workload.input, runId: `run-${i}` }));
    spans.push([t, performance.now()]);
  }
  await local.close();
  // Entries are delivered after the fact: wait one turn of the loop for the last.
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  report({
    warmMs,
    runMs: spans.map(([from, to]) => to - from),
    majorGcs: spans.map(([from, to]) => majors.filter((at) => at >= from && at < to).length),
  });
}

const modes = { inproc: inProcess, fresh, kill, resume, load, concurrent, floor, "first-runs": firstRuns };
const run = modes[mode];
if (!run || !dir || !Number.isInteger(turns)) {
  process.stderr.write(`usage: child.mjs <${Object.keys(modes).join("|")}> <dir> [turns]\n`);
  process.exit(2);
}
await run();
