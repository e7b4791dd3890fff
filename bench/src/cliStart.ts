/**
 * `npm run bench:cli`: how long the `runlog` bin takes from a fresh process, as a user's
 * shell starts it: `runlog --help`, `runlog --version`, and `runlog ls` / `runlog show` on a
 * store that already holds runs. Wall-clock per spawn (process start to exit), many spawns,
 * median and p90. Runs the compiled bin (`npm run build` first); needs no peers.
 * Options: --reps N (spawns per command, default 30).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..", "..");
const BIN = join(ROOT, "bin", "runlog.js");
const i = process.argv.indexOf("--reps");
const REPS = i >= 0 ? Number(process.argv[i + 1]) : 30;
const TARGETS: Record<string, number> = { "--help": 150, ls: 400 };

function cli(dir: string, args: string[], expect = 0): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, RUNLOG_DIR: dir },
    encoding: "utf8",
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== expect) {
    throw new Error(`runlog ${args.join(" ")}: exit ${result.status}: ${result.stderr.trim()}`);
  }
  return ms;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

const dir = mkdtempSync(join(tmpdir(), "runlog-bench-cli-"));
try {
  // An existing store: 20 finished demo runs (each a whole run with tool calls).
  for (let n = 0; n < 20; n++) cli(dir, ["run", "--run-id", `bench-${n}`, "Plan a day out in Lisbon."]);
  const rows: string[] = [];
  const cases: [string, string[]][] = [
    ["--help", ["--help"]],
    ["--version", ["--version"]],
    ["ls", ["ls"]],
    ["show", ["show", "bench-7"]],
    ["resume-point", ["resume-point", "bench-7"]],
  ];
  for (const [name, args] of cases) {
    cli(dir, args); // a warm file cache, as a user's second command has
    const times = Array.from({ length: REPS }, () => cli(dir, args)).sort((a, b) => a - b);
    const target = TARGETS[name];
    const med = quantile(times, 0.5);
    const verdict =
      target === undefined ? "" : med <= target ? `met (≤ ${target} ms)` : `NOT met (≤ ${target} ms)`;
    rows.push(
      `| runlog ${args.join(" ")} | ${quantile(times, 0).toFixed(0)} | ${med.toFixed(0)} | ${quantile(times, 0.9).toFixed(0)} | ${verdict} |`,
    );
  }
  const baseline = Array.from({ length: REPS }, () => {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, ["-e", ""]);
    return Number(process.hrtime.bigint() - t) / 1e6;
  }).sort((a, b) => a - b);
  rows.push(
    `| node -e "" (Node itself) | ${quantile(baseline, 0).toFixed(0)} | ${quantile(baseline, 0.5).toFixed(0)} | ${quantile(baseline, 0.9).toFixed(0)} | |`,
  );
  console.log(
    `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${REPS} spawns each\n`,
  );
  console.log("| command (fresh process) | min ms | median ms | p90 ms | target |");
  console.log("| --- | ---: | ---: | ---: | --- |");
  for (const row of rows) console.log(row);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
