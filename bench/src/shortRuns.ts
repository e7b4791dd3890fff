/**
 * The short-run and performance figures of issues 31 and 27, side by side from one run, each with
 * its target: `npm run bench -- --only short`. runlog is used as a user installs it: `npm run build`,
 * then a temporary project whose node_modules links this package (so `import "runlog"` resolves its
 * exports to dist/) runs short/child.mjs, a plain JavaScript script, in fresh processes. Every
 * fresh-process time is the wall time of the whole process (spawn to exit), as `node -e 0`'s is.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median } from "./measure.ts";
import type { LambdaBundle } from "./short/lambdaBundles.ts";
import {
  buildPackage,
  CONCURRENT_RUNS,
  CONCURRENT_TURNS,
  copyData,
  env,
  LONG,
  MODEL_DELAY_MS,
  ROOT,
  SHORT,
  spawnNode,
  userProject,
  workloadEnv,
} from "./short/project.ts";
import { type Figure, figuresTable } from "./short/targets.ts";

const HERE = import.meta.dirname;
const BIN = join(ROOT, "bin", "runlog.js");

export interface ShortOptions {
  /** Fresh processes per figure (`node -e 0`, import, fresh run, resumes, CLI, bundles). */
  reps: number;
  /** Synthesize and import the Lambda bundles (the slowest part). */
  lambda: boolean;
  log: (line: string) => void;
}

export interface ShortResults {
  figures: Figure[];
  samples: Record<string, unknown>;
  markdown: string;
}

export function shortRuns(options: ShortOptions): ShortResults {
  const { reps, log } = options;
  log("bench short: npm run build …");
  buildPackage();
  const project = userProject();
  const data = mkdtempSync(join(tmpdir(), "runlog-bench-short-data-"));
  const child = (mode: string, dir: string, turns: number, expect = 0, extra: string[] = []) =>
    spawnNode(["child.mjs", mode, dir, String(turns), ...extra], { cwd: project, env: workloadEnv, expect });
  const baseline: number[] = [];
  /** One `node -e 0` beside each fresh-process sample, so the base sees the same load as what is compared with it. */
  const nodeE0 = () => baseline.push(spawnNode(["-e", "0"], { cwd: project }).ms);
  const figures: Figure[] = [];
  /** Ratios to `node -e 0`, filled in once every baseline sample is in. */
  const deferred: Array<() => void> = [];
  const samples: Record<string, unknown> = {};
  const attempt = (name: string, body: () => void) => {
    log(`bench short: ${name} …`);
    try {
      body();
    } catch (error) {
      const note = (error as Error).message.slice(0, 300);
      log(`  could not run: ${note}`);
      figures.push({ figure: name, note });
    }
  };
  const ratioTo = (base: () => number, ms: number) => ms / base();
  const base = () => median(baseline);

  try {
    // --- issue 31 -----------------------------------------------------------------------------
    let importMs: number[] = [];
    attempt('node -e 0 and import "runlog"', () => {
      spawnNode(["import.mjs"], { cwd: project }); // a warm file cache, as a user's second command has
      importMs = [];
      for (let i = 0; i < reps; i++) {
        nodeE0();
        importMs.push(spawnNode(["import.mjs"], { cwd: project }).ms);
      }
      samples.importMs = importMs;
    });
    // Filled in at the end, once every baseline sample is in.
    const baseRow: Figure = { figure: "`node -e 0`, fresh process (median)" };
    const importRow: Figure = {
      figure: '`import "runlog"` (built package, by name), whole fresh process',
      target: { limit: 3, unit: "×", of: "node -e 0" },
    };
    figures.push(baseRow, importRow);

    attempt("openLocal and five 10-turn runs in one process", () => {
      const runs = Array.from({ length: Math.max(3, Math.ceil(reps / 3)) }, (_, i) => {
        const dir = join(data, `inproc-${i}`);
        return child("inproc", dir, SHORT).report as { importMs: number; openMs: number; runMs: number[] };
      });
      samples.inProcess = runs;
      const first = median(runs.map((r) => r.runMs[0]!));
      const fifth = median(runs.map((r) => r.runMs[4]!));
      figures.push(
        { figure: "`openLocal`, in process (after the import)", value: median(runs.map((r) => r.openMs)) },
        {
          figure: "first 10-turn run in a process, start() to stored answer",
          value: first / fifth,
          ms: first,
          target: { limit: 1.5, unit: "×", of: "the fifth run" },
        },
        { figure: "fifth 10-turn run in the same process", value: fifth },
      );
    });

    attempt("a 10-turn run in a fresh process", () => {
      const ms: number[] = [];
      for (let i = 0; i < reps; i++) {
        nodeE0();
        ms.push(child("fresh", join(data, `fresh-${i}`), SHORT).ms);
      }
      samples.freshRunMs = ms;
      const row: Figure = {
        figure: "10-turn run, fresh process: start to stored answer (whole process)",
        ms: median(ms),
        target: { limit: 5, unit: "×", of: "node -e 0" },
      };
      figures.push(row);
      deferred.push(() => {
        row.value = ratioTo(base, row.ms!);
      });
    });

    // Runs killed after turn N, each left for the resumes (and the 1,000-turn one for the CLI).
    const seeds: Record<number, string> = {};
    const killed: Record<number, Array<{ medianTurnMs: number; cpuTurnMs: number }>> = {};
    for (const turns of [SHORT, LONG]) {
      attempt(`a ${turns}-turn run killed after turn ${turns}`, () => {
        killed[turns] = [];
        for (let i = 0; i < (turns === LONG ? 3 : 1); i++) {
          const dir = join(data, `seed-${turns}-${i}`);
          killed[turns].push(child("kill", dir, turns, 137).report as never);
          seeds[turns] ??= dir;
        }
      });
    }
    samples.killedRuns = killed;

    for (const [turns, limit] of [
      [SHORT, 40],
      [LONG, 100],
    ] as const) {
      attempt(`full resume of a ${turns}-turn run, fresh process`, () => {
        const seed = seeds[turns];
        if (!seed) throw new Error(`no ${turns}-turn run was left to resume`);
        const reports: Array<{ ms: number; fullResumeMs: number; openMs: number }> = [];
        for (let i = 0; i < reps; i++) {
          const dir = join(data, `resume-${turns}-${i}`);
          copyData(seed, dir);
          nodeE0();
          const { ms, report } = child("resume", dir, turns);
          reports.push({ ms, fullResumeMs: report.fullResumeMs as number, openMs: report.openMs as number });
          rmSync(dir, { recursive: true, force: true });
        }
        samples[`resume${turns}`] = reports;
        figures.push({
          figure: `full resume of a ${turns.toLocaleString("en-US")}-turn run: openLocal to stored answer, library imported`,
          value: median(reports.map((r) => r.fullResumeMs)),
          target: { limit, unit: "ms" },
          note: `openLocal ${median(reports.map((r) => r.openMs)).toFixed(1)} ms of it`,
        });
        if (turns === LONG) {
          figures.push({
            figure: "full resume of a 1,000-turn run: whole fresh process (issue 27)",
            value: median(reports.map((r) => r.ms)),
            target: { limit: 150, unit: "ms" },
          });
        }
      });
    }

    // --- issue 27 -----------------------------------------------------------------------------
    attempt("resume load of a 1,000-turn run, fresh process", () => {
      const seed = seeds[LONG];
      if (!seed) throw new Error("no 1,000-turn run to load");
      const ms = Array.from({ length: reps }, () => child("load", seed, LONG).report.loadMs as number);
      samples.resumeLoadMs = ms;
      figures.push({
        figure: "resume load of a 1,000-turn run: openLocal + resume point + whole log, library imported",
        value: median(ms),
        target: { limit: 100, unit: "ms" },
      });
    });

    attempt("the floor: three synced SQLite inserts per turn", () => {
      const reports = Array.from({ length: 3 }, (_, i) => {
        const dir = join(data, `floor-${i}`);
        mkdirSync(dir);
        return child("floor", dir, LONG).report as { medianTurnMs: number; cpuTurnMs: number };
      });
      const floors = reports.map((report) => report.medianTurnMs);
      const floorCpu = reports.map((report) => report.cpuTurnMs);
      samples.floorTurnMs = floors;
      samples.floorCpuTurnMs = floorCpu;
      const floor = median(floors);
      const runs = killed[LONG];
      figures.push(
        {
          figure:
            "floor: 3 synced SQLite inserts of 2 KB a turn (WAL, synchronous=FULL, node:sqlite), median ms/turn",
          value: floor,
        },
        {
          // What the writes alone cost the CPU (their syscalls, mostly system time): the part of
          // runlog's CPU a turn that no code of its own can remove.
          figure: "floor: CPU per turn of those 3 inserts (user + system)",
          value: median(floorCpu),
        },
      );
      if (runs?.length) {
        const perTurn = median(runs.map((r) => r.medianTurnMs));
        figures.push(
          {
            figure: "median ms/turn at N = 1,000, every event durable",
            value: perTurn / floor,
            ms: perTurn,
            target: { limit: 2, unit: "×", of: "the floor" },
          },
          {
            figure: "CPU per turn at N = 1,000 (user + system)",
            value: median(runs.map((r) => r.cpuTurnMs)),
            target: { limit: 0.5, unit: "ms" },
          },
        );
      }
    });

    attempt(`${CONCURRENT_RUNS} runs at once in one process`, () => {
      const report = child("concurrent", join(data, "concurrent"), CONCURRENT_TURNS, 0, [
        String(CONCURRENT_RUNS),
      ]).report as { wallMs: number; medianRunMs: number; lagP99Ms: number; cpuMs: number };
      samples.concurrent = report;
      // Each run makes CONCURRENT_TURNS tool turns and the final answer: one model call (50 ms) a turn.
      const modelCalls = CONCURRENT_TURNS + 1;
      const what = `${CONCURRENT_RUNS} runs × ${CONCURRENT_TURNS} turns, model answering in ${MODEL_DELAY_MS} ms`;
      figures.push(
        {
          figure: `${what}: tool turns/s`,
          value: (CONCURRENT_RUNS * CONCURRENT_TURNS) / (report.wallMs / 1000),
          unit: "turns/s",
        },
        {
          figure: `${what}: overhead a turn (median run's wall ÷ ${modelCalls} model calls − ${MODEL_DELAY_MS} ms)`,
          value: report.medianRunMs / modelCalls - MODEL_DELAY_MS,
          target: { limit: 10, unit: "ms" },
        },
        { figure: `${what}: event-loop lag p99`, value: report.lagP99Ms, target: { limit: 100, unit: "ms" } },
      );
    });

    attempt("CLI reads of a 1,000-turn run, fresh process", () => {
      const seed = seeds[LONG];
      if (!seed) throw new Error("no 1,000-turn run to read");
      const cliEnv = { ...env, RUNLOG_DIR: join(seed, "run") };
      for (const [name, args, limit] of [
        ["ls --json", ["ls", "--json"], 3],
        ["resume-point", ["resume-point", "killed"], 3],
        ["show", ["show", "killed"], 5],
      ] as const) {
        spawnNode([BIN, ...args], { cwd: project, env: cliEnv }); // warm file and compile caches
        const ms: number[] = [];
        for (let i = 0; i < reps; i++) {
          nodeE0();
          ms.push(spawnNode([BIN, ...args], { cwd: project, env: cliEnv }).ms);
        }
        samples[`cli ${name}`] = ms;
        const row: Figure = {
          figure: `\`runlog ${name}\` on a 1,000-turn run, fresh process`,
          ms: median(ms),
          target: { limit, unit: "×", of: "node -e 0" },
        };
        figures.push(row);
        deferred.push(() => {
          row.value = ratioTo(base, row.ms!);
        });
      }
    });

    if (options.lambda) {
      attempt("Lambda bundles, imported as deployed", () => {
        const outdir = join(data, "cdk.out");
        const synth = spawnNode(["--import", "tsx", join(HERE, "short", "lambdaBundles.ts"), outdir], {
          cwd: ROOT,
        });
        const bundles = synth.report as unknown as LambdaBundle[];
        if (!Array.isArray(bundles)) throw new Error("lambdaBundles.ts printed no list of bundles");
        const measured = bundles.map((bundle) => ({
          bundle,
          env: { PATH: process.env.PATH, AWS_REGION: "us-east-1", ...bundle.environment },
          ms: [] as number[],
        }));
        for (const { bundle, env } of measured) spawnNode([bundle.file], { cwd: project, env });
        // Twelve bundles: half the samples each keeps the section within a few minutes. Taken in
        // rounds, one of each bundle a round, so a machine that slows down during the section
        // slows every bundle alike instead of the last ones measured.
        for (let i = 0; i < Math.max(3, Math.ceil(reps / 2)); i++) {
          for (const { bundle, env, ms } of measured) {
            nodeE0();
            ms.push(spawnNode([bundle.file], { cwd: project, env }).ms);
          }
        }
        for (const { bundle, ms } of measured) {
          samples[`lambda ${bundle.handler}`] = ms;
          const row: Figure = {
            figure: `Lambda bundle \`${bundle.handler}\` imported with its template environment${bundle.environment.NODE_OPTIONS ? ` (NODE_OPTIONS=${bundle.environment.NODE_OPTIONS})` : ""}`,
            ms: median(ms),
            target: { limit: 4, unit: "×", of: "node -e 0" },
          };
          figures.push(row);
          deferred.push(() => {
            row.value = ratioTo(base, row.ms!);
          });
        }
      });
    }

    baseRow.value = base();
    if (importMs.length) {
      importRow.ms = median(importMs);
      importRow.value = importRow.ms / base();
    } else importRow.note = "see the row above";
    for (const fill of deferred) fill();
    samples.nodeE0Ms = baseline;
  } finally {
    rmSync(project, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  }
  const markdown = [
    `Short runs and performance (issues 31 and 27): runlog built and imported by name from a linked project; fresh-process figures are whole-process wall times, median of ${reps} (the Lambda bundles: of ${Math.max(3, Math.ceil(reps / 2))}), each ratio to the median of ${baseline.length} \`node -e 0\` spawned among them.`,
    "",
    figuresTable(figures),
  ].join("\n");
  return { figures, samples, markdown };
}
