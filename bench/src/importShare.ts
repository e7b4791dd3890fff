/**
 * `npm run bench:import`: what `import "runlog"` costs a fresh process, and how much of it is zod.
 * Alternating fresh processes of `node -e 0`, `import "zod"`, `import "runlog"`, and
 * `import "runlog"` in a project whose `zod` is an inert stand-in (every export a Proxy that any
 * read or call returns unchanged, so runlog's schemas cost nothing to build): the last is what
 * runlog's own modules cost, and what the import would be if nothing on its entry needed zod.
 * An attribution, not a figure runlog ships: the stand-in is never installed anywhere else.
 * Runs the built package (`npm run build` first). Options: --reps N (rounds, default 31).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median } from "./measure.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");
const i = process.argv.indexOf("--reps");
const REPS = i >= 0 ? Number(process.argv[i + 1]) : 31;

/** A user's project holding a copy of the built package (a copy, so `zod` resolves in the project). */
function project(dir: string): string {
  mkdirSync(join(dir, "node_modules", "runlog", "dist"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "bench-import", private: true, type: "module" }),
  );
  cpSync(join(ROOT, "package.json"), join(dir, "node_modules", "runlog", "package.json"));
  cpSync(join(ROOT, "dist", "bundle"), join(dir, "node_modules", "runlog", "dist", "bundle"), {
    recursive: true,
  });
  return dir;
}

/** A `zod` whose every export (the real one's names) is one Proxy: reads, calls and `new` return it. */
async function standIn(at: string): Promise<void> {
  const names = Object.keys(await import("zod"));
  mkdirSync(at);
  writeFileSync(
    join(at, "package.json"),
    JSON.stringify({ name: "zod", type: "module", exports: "./index.js" }),
  );
  writeFileSync(
    join(at, "index.js"),
    "const inert = new Proxy(function () {}, { get: () => inert, apply: () => inert, construct: () => inert });\n" +
      `export { ${names.map((name) => `inert as ${JSON.stringify(name)}`).join(", ")} };\n`,
  );
}

const run = (cwd: string, code: string): number => {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd, encoding: "utf8" });
  if (result.status !== 0)
    throw new Error(`${code} in ${cwd}: exit ${result.status}: ${result.stderr.trim()}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
};

const base = mkdtempSync(join(tmpdir(), "runlog-bench-import-"));
try {
  const real = project(join(base, "real"));
  symlinkSync(join(ROOT, "node_modules", "zod"), join(real, "node_modules", "zod"), "dir");
  const inert = project(join(base, "stand-in"));
  await standIn(join(inert, "node_modules", "zod"));
  const cases: [string, string, string][] = [
    ["`node -e 0`", real, "0"],
    ['`import "zod"`', real, 'import "zod";'],
    ['`import "runlog"`', real, 'import "runlog";'],
    ['`import "runlog"`, zod an inert stand-in', inert, 'import "runlog";'],
  ];
  for (const [, cwd, code] of cases) run(cwd, code); // a warm file cache
  const times = cases.map(() => [] as number[]);
  for (let round = 0; round < REPS; round++) {
    for (const [k, [, cwd, code]] of cases.entries()) times[k]?.push(run(cwd, code));
  }
  const node = median(times[0] ?? []);
  process.stdout.write(
    `${REPS} alternating rounds, Node ${process.version}\n\n| process | median | × node -e 0 |\n| --- | ---: | ---: |\n`,
  );
  cases.forEach(([name], k) => {
    const ms = median(times[k] ?? []);
    process.stdout.write(`| ${name} | ${ms.toFixed(1)} ms | ${(ms / node).toFixed(2)}× |\n`);
  });
} finally {
  rmSync(base, { recursive: true, force: true });
}
