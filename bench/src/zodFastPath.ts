/**
 * `npm run bench:zod-jit`: what zod's compiled fast path costs and saves on a schema parsed a few
 * times a process (lib/core/withoutJit.ts). For two tool schemas, the benchmark's one-field
 * `{ page }` and a six-field one with a nested object, an array and enums, alternating fresh
 * processes parse one set of arguments with and without the fast path: the first parse (what a
 * process's first tool call pays, zod's own first use included) and the mean of 100,000 later ones.
 * Then, in one process, a check of limits with `LimitsSchema.strict()` built at each call (as
 * checkLimits did) against one built once (KnownLimitsSchema): 200 checks after 50 warm-up calls.
 * Options: --reps N (rounds, default 21).
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { median } from "./measure.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");
const i = process.argv.indexOf("--reps");
const REPS = i >= 0 ? Number(process.argv[i + 1]) : 21;

const SCHEMAS = {
  "one field (`{ page }`)": {
    schema: "z.object({ page: z.number().int().min(0) })",
    value: "{ page: 3 }",
  },
  "six fields, nested": {
    schema:
      "z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(100).optional(), " +
      "filters: z.object({ since: z.string().optional(), tags: z.array(z.string()).max(10).optional(), " +
      'kind: z.enum(["a", "b", "c"]).optional() }).optional(), sort: z.enum(["asc", "desc"]).default("asc"), ' +
      "page: z.number().int().min(0).default(0), archived: z.boolean().optional() })",
    value:
      '{ query: "x", limit: 5, filters: { since: "2020", tags: ["a", "b"], kind: "a" }, sort: "desc", page: 2 }',
  },
} as const;

/** One fresh process: the first parse's ms and the later parses' µs each, as JSON. */
const child = (schema: string, value: string, context: string) => `
import * as z from "zod";
const schema = ${schema};
const value = ${value};
let t = performance.now();
if (!schema.safeParse(value, ${context}).success) throw new Error("the value does not fit");
const firstMs = performance.now() - t;
t = performance.now();
for (let k = 0; k < 100000; k++) schema.safeParse(value, ${context});
console.log(JSON.stringify({ firstMs, laterUs: ((performance.now() - t) / 100000) * 1000 }));
`;

/** Run `code` in a fresh process; what it printed, as JSON. */
const run = <T>(code: string): T => {
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr.trim()}`);
  return JSON.parse(result.stdout);
};

const MODES = {
  "fast path compiled (zod's default)": "undefined",
  "without it (`{ jitless: true }`)": "{ jitless: true }",
};
process.stdout.write(
  `${REPS} alternating rounds of fresh processes, Node ${process.version}\n\n` +
    "| schema | parse | first parse | each later parse |\n| --- | --- | ---: | ---: |\n",
);
for (const [name, { schema, value }] of Object.entries(SCHEMAS)) {
  const samples = Object.values(MODES).map(() => ({ first: [] as number[], later: [] as number[] }));
  for (let round = 0; round < REPS; round++) {
    for (const [k, context] of Object.values(MODES).entries()) {
      const { firstMs, laterUs } = run<{ firstMs: number; laterUs: number }>(child(schema, value, context));
      samples[k]?.first.push(firstMs);
      samples[k]?.later.push(laterUs);
    }
  }
  Object.keys(MODES).forEach((mode, k) => {
    const { first = [], later = [] } = samples[k] ?? {};
    process.stdout.write(
      `| ${name} | ${mode} | ${median(first).toFixed(2)} ms | ${median(later).toFixed(2)} µs |\n`,
    );
  });
}

/** A schema derived at each call (a new schema, compiled on its first parse) against one derived once. */
const derived = `
import * as z from "zod";
// LimitsSchema's fields (lib/core/budget.ts).
const Limits = z.object({ maxTurns: z.number().int().min(1).optional(), maxTokens: z.number().int().min(1).optional(), maxCostUsd: z.number().positive().optional() });
const time = (check) => {
  for (let k = 0; k < 50; k++) check({ maxTurns: k + 1 });
  const t = performance.now();
  for (let k = 0; k < 200; k++) check({ maxTurns: k + 1 });
  return ((performance.now() - t) / 200) * 1000;
};
const once = Limits.strict();
console.log(JSON.stringify({ eachCallUs: time((v) => Limits.strict().safeParse(v)), onceUs: time((v) => once.safeParse(v)) }));
`;
const each: number[] = [];
const once: number[] = [];
for (let round = 0; round < REPS; round++) {
  const { eachCallUs, onceUs } = run<{ eachCallUs: number; onceUs: number }>(derived);
  each.push(eachCallUs);
  once.push(onceUs);
}
process.stdout.write(
  `\nA check of limits: \`.strict()\` at each call ${median(each).toFixed(1)} µs, built once ${median(once).toFixed(1)} µs\n`,
);
