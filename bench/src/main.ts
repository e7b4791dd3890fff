/**
 * `npm run bench`: the same agent-loop workload on every system, each system × N in its own
 * processes (a run that dies right after turn N, then a fresh process that resumes it).
 * Options: --turns 10,100,1000  --systems runlog,langgraph,...  --reps N (runs per system × N).
 *
 * Before them, the short-run and performance figures of issues 31 and 27, each with its target
 * (shortRuns.ts), and the AWS price of one turn recomputed from the synthesized template
 * (cost/fromTemplate.ts). --only short|systems|cost runs one of the sections; --short-reps N (fresh
 * processes per figure, default 10); --no-lambda leaves out the Lambda bundles (a synth, the slowest part).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, release, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./measure.ts";
import { type ShortResults, shortRuns } from "./shortRuns.ts";
import { type ChildReport, rawMessageBytes, TOOL_RESULT_BYTES } from "./workload.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCH = resolve(HERE, "..");
const ROOT = resolve(BENCH, "..");
const SYSTEMS = ["runlog", "langgraph", "openai-agents", "aws-durable"] as const;
const HAS_RESUME_CHILD: Record<string, boolean> = {
  runlog: true,
  langgraph: true,
  "openai-agents": true,
  "aws-durable": false,
};
/** A system × N that takes longer is stopped and reported as such (the Agents SDK at N=1000 does). */
const CHILD_TIMEOUT_MS = 10 * 60_000;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const TURNS = (option("turns") ?? "10,100,1000").split(",").map(Number);
const ONLY = (option("systems") ?? SYSTEMS.join(",")).split(",");
const REPS = option("reps");
const SECTIONS = ["short", "systems", "cost"];
const ONLY_SECTION = option("only");
if (ONLY_SECTION !== undefined && !SECTIONS.includes(ONLY_SECTION)) {
  process.stderr.write(`--only must be one of ${SECTIONS.join(", ")}, got ${JSON.stringify(ONLY_SECTION)}\n`);
  process.exit(2);
}
const SHORT_REPS = Number(option("short-reps") ?? "10");
if (!Number.isInteger(SHORT_REPS) || SHORT_REPS < 1) {
  process.stderr.write(
    `--short-reps must be a whole number ≥ 1, got ${JSON.stringify(option("short-reps"))}\n`,
  );
  process.exit(2);
}
const runs = (section: string) => ONLY_SECTION === undefined || ONLY_SECTION === section;
const repsFor = (turns: number) => (REPS ? Number(REPS) : turns <= 10 ? 3 : turns <= 100 ? 2 : 1);

const log = (line: string) => process.stderr.write(`${line}\n`);
const env = { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "1" };

/** Run a script under tsx from the repo root; its last stdout line is its JSON report. */
function child(script: string, args: string[], expectExit: number): Record<string, unknown> {
  const result = spawnSync(process.execPath, ["--import", "tsx", join(HERE, script), ...args], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: CHILD_TIMEOUT_MS,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT") {
    throw new Error(`did not finish within ${CHILD_TIMEOUT_MS / 60_000} min`);
  }
  const lines = (result.stdout ?? "").trim().split("\n");
  const last = lines.at(-1) ?? "";
  if (result.status !== expectExit || !last.startsWith("{")) {
    const why = result.error?.message ?? (result.stderr ?? "").trim().split("\n").slice(-3).join(" | ");
    throw new Error(`${script} ${args.join(" ")}: exit ${result.status ?? result.signal}: ${why}`);
  }
  return JSON.parse(last) as Record<string, unknown>;
}

interface Row {
  system: string;
  turns: number;
  error?: string;
  medianTurnMs?: number;
  bytesPersisted?: number;
  bytesPerTurn?: number;
  rawBytes: number;
  timesRaw?: number;
  bytesAtRest?: number;
  bytesOnDisk?: number;
  resumeMs?: number;
  peakRssMb?: number;
  reps: number;
  notes?: string[];
  runs: ChildReport[];
}

function measure(system: string, turns: number): Row {
  const raw = rawMessageBytes(turns);
  const reps = repsFor(turns);
  const runs: ChildReport[] = [];
  const resumes: ChildReport[] = [];
  try {
    for (let rep = 0; rep < reps; rep++) {
      const dir = mkdtempSync(join(tmpdir(), `runlog-bench-${system}-${turns}-`));
      try {
        runs.push(
          child("child.ts", [system, "run", String(turns), dir], HAS_RESUME_CHILD[system] ? 137 : 0) as never,
        );
        if (HAS_RESUME_CHILD[system])
          resumes.push(child("child.ts", [system, "resume", String(turns), dir], 0) as never);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } catch (error) {
    return { system, turns, rawBytes: raw, reps, runs, error: (error as Error).message.slice(0, 400) };
  }
  // Bytes come from whichever process could see them after turn N (runlog's from the resume process).
  const bytesFrom = [runs[0], resumes[0]].find((r) => r?.bytesWritten !== undefined);
  const mb = (kb: number) => Math.round(kb / 102.4) / 10;
  const bytes = bytesFrom?.bytesWritten;
  const resumeMs = [...runs, ...resumes].map((r) => r.resumeMs).filter((v): v is number => v !== undefined);
  return {
    system,
    turns,
    reps,
    rawBytes: raw,
    medianTurnMs: median(runs.map((r) => median(r.turnMs ?? []))),
    ...(bytes === undefined
      ? {}
      : { bytesPersisted: bytes, bytesPerTurn: Math.round(bytes / turns), timesRaw: bytes / raw }),
    ...(bytesFrom?.bytesAtRest === undefined ? {} : { bytesAtRest: bytesFrom.bytesAtRest }),
    ...(bytesFrom?.bytesOnDisk === undefined ? {} : { bytesOnDisk: bytesFrom.bytesOnDisk }),
    ...(resumeMs.length ? { resumeMs: median(resumeMs) } : {}),
    peakRssMb: mb(Math.max(...runs.map((r) => r.maxRssKb))),
    notes: [...(runs[0]?.notes ?? []), ...(resumes[0]?.notes ?? [])],
    runs: [...runs, ...resumes],
  };
}

function resumePointBench(): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), "runlog-bench-10k-"));
  try {
    const seeded = child("resumePoint.ts", ["seed", dir], 0);
    const fresh = Array.from({ length: 5 }, () => child("resumePoint.ts", ["measure", dir], 0));
    const pick = (key: string) => fresh.map((r) => r[key] as number);
    return {
      events: 10_000,
      seedMs: seeded.ms,
      freshProcesses: fresh.length,
      medianFirstResumePointMs: median(pick("firstMs")),
      medianOpenMs: median(pick("openMs")),
      medianWarmResumePointMs: median(pick("warmMedianMs")),
      samples: fresh,
    };
  } catch (error) {
    return { error: (error as Error).message.slice(0, 400) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function version(pkg: string, from = BENCH): string {
  try {
    return (
      JSON.parse(readFileSync(join(from, "node_modules", pkg, "package.json"), "utf8")) as { version: string }
    ).version;
  } catch {
    return "?";
  }
}

const fmt = (v: number | undefined, digits = 1) =>
  v === undefined || Number.isNaN(v) ? "—" : v.toLocaleString("en-US", { maximumFractionDigits: digits });
const ratio = (v: number | undefined, base: number | undefined) =>
  v === undefined || base === undefined || base === 0 ? "—" : `${fmt(v / base, 2)}×`;

function table(rows: Row[]): string {
  const out = [
    "| system | N | median ms/turn | bytes persisted after N turns | bytes/turn | × raw messages | resume ms | peak RSS MB |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of rows) {
    if (r.error) {
      out.push(`| ${r.system} | ${r.turns} | could not run: ${r.error.replaceAll("|", "/")} | | | | | |`);
      continue;
    }
    const rss = fmt(r.peakRssMb);
    out.push(
      `| ${r.system} | ${r.turns} | ${fmt(r.medianTurnMs, 2)} | ${fmt(r.bytesPersisted, 0)} | ${fmt(r.bytesPerTurn, 0)} | ${fmt(r.timesRaw, 2)} | ${fmt(r.resumeMs)} | ${rss} |`,
    );
  }
  return out.join("\n");
}

function ratios(rows: Row[]): string {
  const out = [
    "| system | N | ms/turn ÷ runlog | bytes ÷ runlog | resume ÷ runlog | peak RSS ÷ runlog |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const r of rows) {
    if (r.system === "runlog" || r.error) continue;
    const base = rows.find((b) => b.system === "runlog" && b.turns === r.turns && !b.error);
    const baseRss = base?.peakRssMb;
    out.push(
      `| ${r.system} | ${r.turns} | ${ratio(r.medianTurnMs, base?.medianTurnMs)} | ${ratio(r.bytesPersisted, base?.bytesPersisted)} | ${ratio(r.resumeMs, base?.resumeMs)} | ${ratio(r.peakRssMb, baseRss)} |`,
    );
  }
  return out.join("\n");
}

const started = new Date();
/** Another process busy on the machine shows here (and inflates every figure). */
const loadAverageAtStart = loadavg().map((v) => Math.round(v * 100) / 100);
const wall = Date.now();
let short: ShortResults | undefined;
if (runs("short")) {
  short = shortRuns({ reps: SHORT_REPS, lambda: !process.argv.includes("--no-lambda"), log });
}
let awsCost: string | undefined;
if (runs("cost")) {
  log("bench: the AWS price of a turn, from the synthesized template …");
  const priced = spawnSync(process.execPath, ["--import", "tsx", join(HERE, "cost", "fromTemplate.ts")], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  if (priced.status !== 0) throw new Error(`cost/fromTemplate.ts: exit ${priced.status}: ${priced.stderr}`);
  awsCost = priced.stdout.trim().split("\n").slice(0, -1).join("\n");
}
// The peers are installed only for the section that runs them.
if (runs("systems")) {
  const install = spawnSync(process.execPath, [join(BENCH, "install.mjs")], { stdio: "inherit" });
  if (install.status !== 0) throw new Error(`bench/install.mjs: exit ${install.status}`);
}
const rows: Row[] = [];
for (const turns of runs("systems") ? TURNS : []) {
  for (const system of SYSTEMS.filter((s) => ONLY.includes(s))) {
    const t = Date.now();
    log(`bench: ${system}, N=${turns} (${repsFor(turns)} run${repsFor(turns) > 1 ? "s" : ""}) …`);
    const row = measure(system, turns);
    rows.push(row);
    log(
      row.error
        ? `  could not run: ${row.error}`
        : `  ${fmt(row.medianTurnMs, 2)} ms/turn, ${fmt(row.bytesPersisted, 0)} B, resume ${fmt(row.resumeMs)} ms (${fmt((Date.now() - t) / 1000)} s)`,
    );
  }
}
let resumePoint: Record<string, unknown> | undefined;
if (runs("systems") && ONLY.includes("runlog") && !process.argv.includes("--no-resume-point")) {
  log("bench: runlog resume-point on a 10,000-event run …");
  resumePoint = resumePointBench();
}

const cpuModel = cpus()[0]?.model ?? "?";
const machine = {
  cpu: `${cpuModel} × ${cpus().length}`,
  ramGb: Math.round(totalmem() / 2 ** 30),
  freeRamGbAtStart: Math.round(freemem() / 2 ** 30),
  node: process.version,
  os: `${readOs()} (Linux ${release()})`,
};
function readOs(): string {
  try {
    return /PRETTY_NAME="([^"]+)"/.exec(readFileSync("/etc/os-release", "utf8"))?.[1] ?? "Linux";
  } catch {
    return "Linux";
  }
}
const versions = {
  runlog: (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version,
  "@langchain/langgraph": version("@langchain/langgraph"),
  "@langchain/langgraph-checkpoint-sqlite": version("@langchain/langgraph-checkpoint-sqlite"),
  "better-sqlite3": version("better-sqlite3"),
  "@openai/agents": version("@openai/agents"),
  "@aws/durable-execution-sdk-js": version("@aws/durable-execution-sdk-js"),
  "@aws/durable-execution-sdk-js-testing": version("@aws/durable-execution-sdk-js-testing"),
};
const results = {
  startedAt: started.toISOString(),
  wallSeconds: Math.round((Date.now() - wall) / 1000),
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`,
  machine,
  loadAverageAtStart,
  loadAverageAtEnd: loadavg().map((v) => Math.round(v * 100) / 100),
  versions,
  workload: { toolResultBytes: TOOL_RESULT_BYTES, turns: TURNS },
  ...(short ? { short: { figures: short.figures, samples: short.samples } } : {}),
  rows,
  resumePoint,
};
mkdirSync(join(BENCH, "results"), { recursive: true });
writeFileSync(join(BENCH, "results", "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
const markdown = [
  `Run ${results.startedAt}, ${results.wallSeconds} s, \`${results.command}\`; ${machine.cpu}, ${machine.ramGb} GB, Node ${machine.node}, ${machine.os}; load average at the start ${loadAverageAtStart.join(" ")}, at the end ${results.loadAverageAtEnd.join(" ")}.`,
  "",
  ...(short ? [short.markdown, ""] : []),
  ...(awsCost
    ? [
        "What one turn costs on AWS, recomputed from the synthesized template (list prices, us-east-1; the model's own price extra):",
        "",
        awsCost,
        "",
      ]
    : []),
  ...(rows.length ? [table(rows), "", ratios(rows), ""] : []),
  resumePoint && !("error" in resumePoint)
    ? `runlog resume-point on a 10,000-event run, fresh process (median of ${resumePoint.freshProcesses}): first resumePoint ${fmt(resumePoint.medianFirstResumePointMs as number)} ms after openLocal (${fmt(resumePoint.medianOpenMs as number)} ms); later calls on the same instance ${fmt(resumePoint.medianWarmResumePointMs as number)} ms.`
    : resumePoint
      ? `runlog resume-point on a 10,000-event run: could not run: ${String(resumePoint.error)}`
      : "",
].join("\n");
writeFileSync(join(BENCH, "results", "latest.md"), `${markdown}\n`);
process.stdout.write(`${markdown}\n\nresults: bench/results/latest.json, bench/results/latest.md\n`);
