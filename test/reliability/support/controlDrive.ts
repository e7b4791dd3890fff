import { expect } from "vitest";
import { CRASH_EXIT_CODE } from "../../../lib/adapters/local/envFaults.ts";
import { NotFoundError } from "../../../lib/core/errors.ts";
import { events, library, runlog, type ShownEvent } from "../../support/cli.ts";
import { lines } from "./checks.ts";
import { type Command, type ControlOperation, LOST_ANSWER, MODEL, RUN } from "./controlOperations.ts";

/** What a request printed: its exit code and its `--json` answer (the raw text if it printed no JSON). */
export interface Answer {
  code: number;
  json: unknown;
}

/** One play of an operation's story, and what it left behind. */
export interface Play {
  /** The answer to each request (for a crashed one, its retry's). */
  answers: Answer[];
  /** The final log of the story's run, and of its parent when the story forks. */
  final: ShownEvent[];
  parent: ShownEvent[];
  /** The side-effect files' lines. */
  notes: string[];
  outbox: string[];
  head: HeadFacts;
  /** Every log seen after a process ended: each must be a prefix of the final one. */
  snapshots: { runId: string; log: ShownEvent[] }[];
  spawns: number;
  crashes: number;
  /** Commands the story needed after its requests to complete (zero when the requests complete it). */
  extraCommands: string[];
}

/** What the head says about a run at rest, without its times and lease version. */
export interface HeadFacts {
  status: string;
  lastSeq: number;
  leased: boolean;
  autoResumes: number;
}

/** Exit codes of an uncrashed control command here: done, not done, usage, paused. */
const CLEAN_CODES = [0, 1, 2, 3];

/**
 * Plays one operation's story in `dir`: the setup, then each request; the request `crash.request`
 * with RUNLOG_CRASH_AT=`crash.crashAt`, which must kill it, then its retry. Then drives the run to
 * its end (approving or resuming, as the step crash matrix does) and reads what it left.
 */
export class ControlPlayer {
  private readonly play: Play = {
    answers: [],
    final: [],
    parent: [],
    notes: [],
    outbox: [],
    head: { status: "", lastSeq: 0, leased: false, autoResumes: 0 },
    snapshots: [],
    spawns: 0,
    crashes: 0,
    extraCommands: [],
  };

  constructor(
    private readonly dir: string,
    private readonly operation: ControlOperation,
    private readonly model: string,
  ) {}

  async run(crash?: { request: number; crashAt: string }): Promise<Play> {
    const { operation } = this;
    for (const command of operation.setup) {
      const result = await this.spawn(command.args, command.crashAt);
      if (command.crashAt !== undefined) expect(result.code, `setup ${command.args.join(" ")}`).toBe(137);
    }
    for (const [index, request] of operation.requests.entries()) {
      if (crash?.request === index && crash.crashAt === LOST_ANSWER) {
        // The request completes; its answer never reaches the client, which sends it again.
        const lost = await this.spawn(request.args);
        expect(CLEAN_CODES, `${request.args[0]} before its answer was lost`).toContain(lost.code);
        this.play.answers.push(await this.spawn(request.args));
      } else if (crash?.request === index) {
        const crashed = await this.spawn(request.args, crash.crashAt);
        expect(crashed.code, `${request.args[0]} at ${crash.crashAt} did not crash`).toBe(CRASH_EXIT_CODE);
        const retry = operation.retry?.(request) ?? request;
        const answer = await this.spawn(retry.args);
        // Retried by another command (a handoff's run by resume): the run's outcome is what compares.
        this.play.answers.push(retry === request ? answer : { ...answer, json: outcomeOf(answer.json) });
      } else this.play.answers.push(await this.spawn(request.args));
    }
    const runId = operation.finalRun ?? RUN;
    await this.finish(runId);
    this.play.final = await events(this.dir, runId);
    if (runId !== RUN) this.play.parent = await events(this.dir, RUN);
    this.play.notes = lines(this.dir, "notes.txt");
    this.play.outbox = lines(this.dir, "outbox.txt");
    this.play.head = await headFacts(this.dir, runId);
    return this.play;
  }

  /** Spawn `runlog ARGS --json`, then snapshot the story's logs as the process left them. */
  private async spawn(args: string[], crashAt?: string): Promise<Answer> {
    const env = { ...this.operation.env, ...(crashAt === undefined ? {} : { RUNLOG_CRASH_AT: crashAt }) };
    const withModel = args.map((arg) => (arg === MODEL ? this.model : arg));
    const result = await runlog(this.dir, [...withModel, "--json"], env);
    this.play.spawns++;
    if (result.code === CRASH_EXIT_CODE) this.play.crashes++;
    else expect(CLEAN_CODES, `runlog ${args.join(" ")}: ${result.stderr}`).toContain(result.code);
    for (const runId of new Set([RUN, this.operation.finalRun ?? RUN])) {
      this.play.snapshots.push({ runId, log: await logOrNothing(this.dir, runId) });
    }
    return { code: result.code, json: jsonOrText(result.stdout) };
  }

  /** Approve or resume until the run completes; each command needed is recorded (none, when all went well). */
  private async finish(runId: string): Promise<void> {
    const { runlog: lib } = await library(this.dir);
    for (let round = 0; round < 6; round++) {
      const point = await lib.resumePoint(runId);
      if (!point.resumable && point.reason === "completed") return;
      if (!point.resumable && point.reason === "awaiting_approval") {
        for (const call of point.waitingToolCalls ?? []) {
          this.play.extraCommands.push(`approve ${call.id}`);
          await this.spawn(["approve", runId, call.id, "--by", "matrix"]);
        }
        continue;
      }
      expect(point, `resume point of ${runId} after the story`).toMatchObject({ resumable: true });
      this.play.extraCommands.push("resume");
      await this.spawn(["resume", runId]);
    }
    throw new Error(
      `run ${runId} did not complete after 6 more commands: ${this.play.extraCommands.join(", ")}`,
    );
  }
}

/** A run's log, or nothing before the run exists. */
async function logOrNothing(dir: string, runId: string): Promise<ShownEvent[]> {
  try {
    return await events(dir, runId);
  } catch (error) {
    if (error instanceof NotFoundError) return [];
    throw error;
  }
}

function jsonOrText(stdout: string): unknown {
  try {
    return wallClockFree(JSON.parse(stdout));
  } catch {
    return stdout;
  }
}

/** An answer with what depends on the wall clock (a sweep's oldest stale age, in ms) kept as its type, not its value. */
function wallClockFree(json: unknown): unknown {
  if (typeof json !== "object" || json === null || !("oldestStaleAgeMs" in json)) return json;
  return { ...json, oldestStaleAgeMs: typeof json.oldestStaleAgeMs };
}

async function headFacts(dir: string, runId: string): Promise<HeadFacts> {
  const { runlog: lib } = await library(dir);
  const page = await lib.list({ limit: 100 });
  const head = page.runs.find((run) => run.runId === runId);
  if (!head) throw new Error(`run ${runId} has no head`);
  return {
    status: head.status,
    lastSeq: head.lastSeq,
    leased: head.lease !== undefined,
    autoResumes: head.autoResumes?.count ?? 0,
  };
}

/** Fields that say when or how long, which no two plays share. */
const TIMING = new Set(["at", "ms"]);

/** A log as two plays of one story must both have written it: everything but the timing fields. */
export function comparable(log: readonly ShownEvent[]): Record<string, unknown>[] {
  const timeless = log.map((event) =>
    Object.fromEntries(Object.entries(event).filter(([key]) => !TIMING.has(key))),
  );
  return inBatchOrder(timeless);
}

const TOOL_EVENTS = new Set(["tool_started", "tool_result"]);

/**
 * The calls of one batch run in parallel, so their `tool_started` and `tool_result` events land
 * in any order: within each unbroken stretch of them, order by call (starts first) and drop the
 * seq (contiguity is checked on its own), so two logs compare equal when they did the same work.
 */
function inBatchOrder(log: Record<string, unknown>[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < log.length; ) {
    if (!TOOL_EVENTS.has(String(log[i]!.type))) {
      out.push(log[i++]!);
      continue;
    }
    const stretch: Record<string, unknown>[] = [];
    while (i < log.length && TOOL_EVENTS.has(String(log[i]!.type))) {
      const { seq: _, ...event } = log[i++]!;
      stretch.push(event);
    }
    const key = (e: Record<string, unknown>) => `${e.type === "tool_started" ? 0 : 1}:${String(e.callId)}`;
    out.push(...stretch.sort((a, b) => key(a).localeCompare(key(b))));
  }
  return out;
}

/** How often a text came in as input: a run's first message, a user message, or a resume's new message. */
export function inputCount(log: readonly ShownEvent[], text: string): number {
  return log.filter(
    (e) =>
      ((e.type === "run_started" || e.type === "resumed") && e.input === text) ||
      (e.type === "user_message" && e.text === text),
  ).length;
}

export const resumedCount = (log: readonly ShownEvent[]) => log.filter((e) => e.type === "resumed").length;

/** The command lines a story runs, for a case's name. */
export const describeCommand = (command: Command) => command.args.filter((a) => a !== MODEL).join(" ");

/**
 * Every event seen after a process ended is in the final log, unchanged, at its seq: nothing was
 * rewritten. By seq, not as a prefix: a fork killed after its copy holds seqs 2..n before its
 * `run_started` (seq 1) exists.
 */
export function expectKept(snapshots: readonly ShownEvent[][], final: readonly ShownEvent[]): void {
  for (const snapshot of snapshots) {
    for (const event of snapshot) expect(final[event.seq - 1], `seq ${event.seq}`).toEqual(event);
  }
}

/** The outcome part of a command's --json answer: the run, its status and output. */
function outcomeOf(json: unknown): unknown {
  if (typeof json !== "object" || json === null) return json;
  const { runId, status, output } = json as Record<string, unknown>;
  return { runId, status, output };
}
