import type { RedriveReport, SweepReport } from "../api/types.ts";
import type { Limits } from "../core/budget.ts";
import type { Metadata } from "../core/metadata.ts";
import { RUN_STATUSES, type RunStatus } from "../core/status.ts";
import {
  type CommandContext,
  listCommand,
  printRuns,
  reportOutcome,
  resumeCommand,
  resumePointCommand,
  runCommand,
  scriptCommand,
  showCommand,
} from "./commands.ts";
import { INPUT_FILE, readInput } from "./input.ts";
import { parseSettings, SETTINGS, type Values } from "./settingsFlags.ts";
import { UsageError } from "./usage.ts";

/** One CLI command: its own flags, how many arguments it takes, and what it does. */
export interface Command {
  options: Record<string, { type: "string" | "boolean"; default?: string | boolean; multiple?: boolean }>;
  positionals: { min: number; max: number; names: string };
  /** It starts runs, so it creates a data dir that does not exist yet; other commands find no runs there. */
  creates?: boolean;
  /**
   * Its answer when the data dir does not exist (no store is opened, nothing is created).
   * @default "run <first argument> not found", for a command about one run
   */
  withoutRuns?(context: Omit<CommandContext, "runs">): number;
  run(context: CommandContext, values: Values, positionals: string[]): Promise<number>;
}

const one = (names: string) => ({ min: 1, max: 1, names });
const str = (values: Values, key: string) =>
  typeof values[key] === "string" ? (values[key] as string) : undefined;
const optional = <K extends string>(key: K, value: string | undefined) =>
  value === undefined ? {} : { [key]: value };
/** `ls --status`: one of the run statuses, or a usage error naming them. */
function listedStatus(value: string | undefined): RunStatus | undefined {
  if (value === undefined || (RUN_STATUSES as readonly string[]).includes(value)) return value as RunStatus;
  throw new UsageError(
    `ls --status: expected one of ${RUN_STATUSES.join(", ")}, got ${JSON.stringify(value)}`,
  );
}
/** Whom the caller acts for (`--by`, recorded as `onBehalfOf`) and why. */
const actor = (values: Values) => ({
  ...optional("by", str(values, "by")),
  ...optional("reason", str(values, "reason")),
});

function parseCount(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`sweep: ${flag} takes a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as `--since` takes it: a whole number and a unit, 90s, 30m, 2h, 1d. */
export function parseDuration(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)([smhd])$/.exec(value);
  if (!match || Number(match[1]) === 0)
    throw new UsageError(`${flag} takes a duration such as 30m, 2h or 1d, got ${JSON.stringify(value)}`);
  return Number(match[1]) * DURATION_UNITS[match[2]!]!;
}

/** `run --metadata`: a JSON object as text (its size and values are the library's to check). */
function parseMetadata(value: string | undefined): { metadata?: Metadata } {
  if (value === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new UsageError(
      `run: --metadata takes a JSON object such as '{"requestId":"r-1"}', got ${JSON.stringify(value)}`,
    );
  }
  return { metadata: parsed as Metadata };
}

function parseSeq(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`fork: --at takes a seq (a whole number), got ${JSON.stringify(value)}`);
  return Number(value);
}

/** The text a command takes as its argument, `-` (stdin) or --input-file. */
const input = (what: string, values: Values, argument: string | undefined) =>
  readInput({ what, argument, file: str(values, "input-file") });

/** The same, where it is required: the usage error names the three ways to give it. */
async function requiredInput(command: string, what: string, values: Values, argument: string | undefined) {
  const text = await input(what, values, argument);
  if (text === undefined)
    throw new UsageError(
      `${command}: expected one "${what}" (or - to read it from stdin, or --input-file PATH)`,
    );
  return text;
}

const MODEL = { model: { type: "string" } } as const;
/** A run's budget: `--max-turns N`, `--max-tokens N`, `--max-cost-usd USD` (docs/guides/budgets.md). */
const LIMITS = {
  "max-turns": { type: "string" },
  "max-tokens": { type: "string" },
  "max-cost-usd": { type: "string" },
} as const;

/** The limits the flags give, if any; a flag that is not a number is a usage error naming it. */
function parseLimits(command: string, values: Values): { limits?: Limits } {
  const number = (flag: string, pattern: RegExp, what: string) => {
    const value = str(values, flag);
    if (value === undefined) return undefined;
    if (!pattern.test(value))
      throw new UsageError(`${command}: --${flag} takes ${what}, got ${JSON.stringify(value)}`);
    return Number(value);
  };
  const limits: Limits = {
    ...optionalNumber("maxTurns", number("max-turns", /^\d+$/, "a whole number of model turns")),
    ...optionalNumber("maxTokens", number("max-tokens", /^\d+$/, "a whole number of tokens")),
    ...optionalNumber("maxCostUsd", number("max-cost-usd", /^\d+(\.\d+)?$/, "US dollars, such as 0.50")),
  };
  return Object.keys(limits).length === 0 ? {} : { limits };
}
const optionalNumber = <K extends string>(key: K, value: number | undefined) =>
  value === undefined ? {} : { [key]: value };
/** `--idempotency-key KEY`: recorded on the event the command writes, so running it again writes nothing more. */
const KEY = { "idempotency-key": { type: "string" } } as const;
const DECISION = { by: { type: "string" }, reason: { type: "string" }, ...KEY } as const;
const keyed = (values: Values) => optional("idempotencyKey", str(values, "idempotency-key"));

export const COMMANDS: Readonly<Record<string, Command>> = {
  run: {
    options: {
      agent: { type: "string", default: "demo" },
      "run-id": { type: "string" },
      metadata: { type: "string" },
      ...MODEL,
      ...LIMITS,
      ...SETTINGS,
      ...INPUT_FILE,
    },
    positionals: { min: 0, max: 1, names: 'one "prompt"' },
    creates: true,
    run: async (context, values, [prompt]) =>
      runCommand(context, {
        agent: str(values, "agent") ?? "demo",
        input: await requiredInput("run", "prompt", values, prompt),
        ...optional("model", str(values, "model")),
        ...optional("runId", str(values, "run-id")),
        ...parseMetadata(str(values, "metadata")),
        ...parseLimits("run", values),
        ...parseSettings("run", values),
      }),
  },
  resume: {
    options: { ...MODEL, ...LIMITS, ...SETTINGS },
    positionals: one("<runId>"),
    run: (context, values, [runId]) =>
      resumeCommand(context, {
        runId: runId!,
        ...optional("model", str(values, "model")),
        ...parseLimits("resume", values),
        ...parseSettings("resume", values),
      }),
  },
  script: {
    options: { out: { type: "string" } },
    positionals: one("<runId>"),
    run: (context, values, [runId]) => scriptCommand(context, runId!, str(values, "out")),
  },
  "resume-point": {
    options: {},
    positionals: one("<runId>"),
    run: (context, _, [runId]) => resumePointCommand(context, runId!),
  },
  show: {
    options: {},
    positionals: one("<runId>"),
    run: (context, _, [runId]) => showCommand(context, runId!),
  },
  ls: {
    options: {
      status: { type: "string" },
      "forks-of": { type: "string" },
      "children-of": { type: "string" },
    },
    positionals: { min: 0, max: 0, names: "no arguments" },
    withoutRuns: (context) => printRuns(context, []),
    run: (context, values) =>
      listCommand(context, {
        ...optional("status", listedStatus(str(values, "status"))),
        ...optional("parent", str(values, "forks-of")),
        ...optional("childrenOf", str(values, "children-of")),
      }),
  },
  send: {
    options: { ...INPUT_FILE, ...KEY },
    positionals: { min: 1, max: 2, names: '<runId> "message"' },
    run: async (context, values, [runId, message]) => {
      const text = await requiredInput("send", "message", values, message);
      return reportOutcome(context, await context.runs.send(runId!, text, keyed(values)));
    },
  },
  fork: {
    options: { at: { type: "string" }, id: { type: "string" }, ...MODEL, ...SETTINGS, ...INPUT_FILE, ...KEY },
    positionals: { min: 1, max: 2, names: '<runId> ["input"]' },
    run: async (context, values, [runId, argument]) => {
      const atSeq = parseSeq(str(values, "at"));
      const text = await input("input", values, argument);
      const outcome = await context.runs.fork({
        runId: runId!,
        ...(atSeq === undefined ? {} : { atSeq }),
        ...optional("input", text),
        ...optional("forkId", str(values, "id")),
        ...optional("model", str(values, "model")),
        ...parseSettings("fork", values),
        ...keyed(values),
      });
      return reportOutcome(
        context,
        outcome,
        context.json ? undefined : `forked ${runId} into ${outcome.runId}`,
      );
    },
  },
  approve: {
    options: DECISION,
    positionals: { min: 2, max: 2, names: "<runId> <callId>" },
    run: async (context, values, [runId, callId]) =>
      reportOutcome(context, await context.runs.decide(runId!, callId!, true, actor(values), keyed(values))),
  },
  reject: {
    options: DECISION,
    positionals: { min: 2, max: 2, names: "<runId> <callId>" },
    run: async (context, values, [runId, callId]) =>
      reportOutcome(context, await context.runs.decide(runId!, callId!, false, actor(values), keyed(values))),
  },
  sweep: {
    options: { "stale-after": { type: "string" }, "max-resumes": { type: "string" } },
    positionals: { min: 0, max: 0, names: "no arguments" },
    withoutRuns: (context) =>
      printSweep(context, {
        examined: 0,
        resumed: [],
        skipped: [],
        failed: [],
        complete: true,
        approvals: { examined: 0, expired: [], failed: [], complete: true },
      }),
    run: async (context, values) => {
      // Locally a dead executor is known at once (its process is gone), so by default nothing waits.
      const staleAfter = parseCount("--stale-after", str(values, "stale-after")) ?? 0;
      const maxResumes = parseCount("--max-resumes", str(values, "max-resumes"));
      const report = await context.runs.sweep({
        staleAfterMs: staleAfter * 1000,
        ...(maxResumes === undefined ? {} : { maxAutoResumes: maxResumes }),
      });
      return printSweep(context, report);
    },
  },
  redrive: {
    options: {
      since: { type: "string" },
      agent: { type: "string" },
      "dry-run": { type: "boolean", default: false },
    },
    positionals: { min: 0, max: 0, names: "no arguments" },
    withoutRuns: (context) =>
      printRedrive(context, { dryRun: false, examined: 0, resumed: 0, skipped: 0, failed: 0, runs: [] }),
    run: async (context, values) => {
      const sinceMs = parseDuration("redrive: --since", str(values, "since"));
      const report = await context.runs.redrive({
        ...(sinceMs === undefined ? {} : { sinceMs }),
        ...optional("agent", str(values, "agent")),
        dryRun: values["dry-run"] === true,
      });
      return printRedrive(context, report);
    },
  },
  cancel: {
    options: DECISION,
    positionals: one("<runId>"),
    run: async (context, values, [runId]) => {
      const outcome = await context.runs.cancel(runId!, actor(values), keyed(values));
      reportOutcome(context, outcome);
      return 0;
    },
  },
};

function printSweep({ io, json }: Omit<CommandContext, "runs">, report: SweepReport): number {
  if (json) io.json(report);
  else {
    io.out(
      `examined ${report.examined} running run(s): resumed ${report.resumed.length}, skipped ${report.skipped.length}, failed ${report.failed.length}`,
    );
    for (const run of report.resumed)
      io.out(`  resumed ${run.runId} (generation ${run.generation}, ${run.kind})`);
    for (const run of report.skipped) io.out(`  skipped ${run.runId}: ${run.why}`);
    for (const run of report.failed) io.out(`  failed  ${run.runId}: ${run.error}`);
    const { approvals } = report;
    if (approvals.expired.length > 0 || approvals.failed.length > 0) {
      io.out(
        `examined ${approvals.examined} paused run(s): approvals expired in ${approvals.expired.length}`,
      );
    }
    for (const run of approvals.expired) {
      const went = run.generation === undefined ? "" : `; went on as generation ${run.generation}`;
      io.out(`  expired ${run.runId}: ${run.callIds.join(", ") || "(decided before)"}${went}`);
    }
    for (const run of approvals.failed) io.out(`  failed  ${run.runId}: ${run.error}`);
  }
  return report.failed.length > 0 || report.approvals.failed.length > 0 ? 1 : 0;
}

function printRedrive({ io, json }: Omit<CommandContext, "runs">, report: RedriveReport): number {
  if (json) io.json(report);
  else {
    const resumed = report.dryRun ? "would resume" : "resumed";
    io.out(
      `examined ${report.examined} failed run(s): ${resumed} ${report.resumed}, skipped ${report.skipped}, failed ${report.failed}`,
    );
    for (const run of report.runs) {
      if (run.outcome === "resumed") io.out(`  resumed ${run.runId} (generation ${run.generation})`);
      else if (run.outcome === "would_resume") io.out(`  would resume ${run.runId}`);
      else if (run.outcome === "skipped") io.out(`  skipped ${run.runId}: ${run.why}`);
      else io.out(`  failed  ${run.runId}: ${run.error}`);
    }
  }
  return report.failed > 0 ? 1 : 0;
}
