/**
 * `npm run bench:first-run`: why the first 10-turn run of a process is slower than the fifth
 * (issue 31's first ≤ 1.5× the fifth), and whether a throwaway run ahead of it (what paying the
 * first run's cost in `openLocal` would be) takes the difference away. In alternating fresh
 * processes of the short section's user project (runlog built, imported by name): five 10-turn
 * runs after `openLocal`, with and without a whole 10-turn run on another data dir first
 * (short/child.mjs, `first-runs`). Prints the median of each run's time, the throwaway run's cost
 * and how many mark-compact collections fell in each run. Options: --reps N (rounds, default 12).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./measure.ts";
import { buildPackage, SHORT, spawnNode, userProject, workloadEnv } from "./short/project.ts";

const i = process.argv.indexOf("--reps");
const REPS = i >= 0 ? Number(process.argv[i + 1]) : 12;

interface Report {
  warmMs: number;
  runMs: number[];
  majorGcs: number[];
}

const started = new Date().toISOString().slice(0, 16).replace("T", " ");
buildPackage();
const project = userProject();
const data = mkdtempSync(join(tmpdir(), "runlog-bench-first-run-"));
/** What runs before openLocal: nothing, or a throwaway run of that many tool turns. */
const CASES: Record<string, string[]> = {
  "no run before": [],
  "a throwaway 1-turn run first": ["warm", "1"],
  "a throwaway 10-turn run first": ["warm", String(SHORT)],
};
const reports: Record<string, Report[]> = Object.fromEntries(Object.keys(CASES).map((label) => [label, []]));
try {
  for (let round = 0; round < REPS; round++) {
    for (const [label, warm] of Object.entries(CASES)) {
      const dir = join(data, `${warm.join("-") || "cold"}-${round}`);
      const { report } = spawnNode(["child.mjs", "first-runs", dir, String(SHORT), ...warm], {
        cwd: project,
        env: workloadEnv,
      });
      reports[label]!.push(report as unknown as Report);
      rmSync(dir, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(project, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
}

const ms = (values: number[]) => `${median(values).toFixed(1)} ms`;
const lines = [
  `${started} UTC, Node ${process.version}, ${REPS} rounds of alternating fresh processes, medians; ` +
    "mark-compacts: processes with one in that run.",
  "",
  "| before openLocal | throwaway run | run 1 | run 2 | run 3 | run 5 | run 1 ÷ run 5 | mark-compacts in run 1 / run 2 |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
];
for (const [label, warm] of Object.entries(CASES)) {
  const rows = reports[label]!;
  const run = (k: number) => rows.map((r) => r.runMs[k]!);
  const withMajor = (k: number) => rows.filter((r) => (r.majorGcs[k] ?? 0) > 0).length;
  lines.push(
    `| ${label} | ${warm.length > 0 ? ms(rows.map((r) => r.warmMs)) : "—"} | ${ms(run(0))} | ${ms(run(1))} | ` +
      `${ms(run(2))} | ${ms(run(4))} | ${median(rows.map((r) => r.runMs[0]! / r.runMs[4]!)).toFixed(2)}× | ` +
      `${withMajor(0)} / ${withMajor(1)} of ${rows.length} |`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
