import { localPrincipal } from "../../../lib/runtime/local/localPrincipal.ts";
import type { ShownEvent } from "../../support/cli.ts";

/** One CLI command of a control story; `crashAt` is only for the setup's own crashes. */
export interface Command {
  args: string[];
  /** RUNLOG_CRASH_AT for this command in every play of the story (the setup of an interrupted run). */
  crashAt?: string;
}

/** Where a case crashes: which of the story's requests, at which `<point>[@<n>]`. */
export interface ControlCase {
  /** Index into `requests`. */
  request: number;
  crashAt: string;
  /**
   * The final log this case must end with, from the uncrashed story's: the reference itself
   * unless the crash leaves a legitimate, named difference.
   */
  expectedLog?(reference: ShownEvent[]): ShownEvent[];
}

/**
 * A control operation's story, played once without a crash (the reference) and once per case
 * with that case's crash and a retry of the crashed command. Model turns are shared by both, so
 * call ids, texts and side effects match line for line.
 */
export interface ControlOperation {
  name: string;
  /** The scripted model's turns, for the whole story. */
  turns: unknown[];
  /** Commands that bring the run where the operation starts (the story's fixed past). */
  setup: Command[];
  /** The commands under test, in order; each is checked against the reference's output. */
  requests: Command[];
  /** The command that retries a crashed request. @default the same command */
  retry?(request: Command): Command;
  /** Environment for every command of the story (both plays). */
  env?: Record<string, string>;
  /** The run whose log is checked at the end. @default RUN */
  finalRun?: string;
  /** Texts the story gives as input: each must be in the final log exactly once. */
  inputs: string[];
  cases: ControlCase[];
}

/** The run every story starts; a fork's new id. */
export const RUN = "r";
export const FORK = "r-fork";
/** Replaced by the story's model spec (a script shared by both plays) in every command. */
export const MODEL = "<model>";

const note = (text: string) => ({ name: "write_note", arguments: { text } });
const email = (to: string) => ({ name: "send_email", arguments: { to, subject: "Lunch" } });
const done = (text: string) => ({ text, stop: "stop" });

const run = (crashAt?: string): Command => ({
  args: ["run", "--run-id", RUN, "--model", MODEL, "go"],
  ...(crashAt === undefined ? {} : { crashAt }),
});
/** A run that stopped after the model asked for a tool, before the tool ran: resumable, `run_tools`. */
const interrupted = run("model:after-append");

/**
 * Not a crash: the request completes, its answer is lost, and the client sends it again (with the
 * same idempotency key). The retry must write nothing and answer as the first did.
 */
export const LOST_ANSWER = "lost-answer";
/** The idempotency key every keyed request of the stories sends. */
const KEY = ["--idempotency-key", "matrix-key"];

const CONTROL = ["control:after-claim", "control:after-append", "control:before-execute"] as const;
const FORK_POINTS = ["fork:after-copy", "control:after-append", "control:before-execute"] as const;
const at = (request: number, points: readonly string[]): ControlCase[] =>
  points.map((crashAt) => ({ request, crashAt }));

/** Two calls waiting for approval, both decided the same way; the last decision resumes the run. */
function decisions(verb: "approve" | "reject"): ControlOperation {
  return {
    name: verb,
    turns: [{ toolCalls: [email("a@example.com"), email("b@example.com")] }, done("Decided")],
    setup: [run()],
    requests: [
      { args: [verb, RUN, "call_0_0", "--by", "matrix", "--idempotency-key", "first"] },
      { args: [verb, RUN, "call_0_1", "--by", "matrix", "--idempotency-key", "second"] },
    ],
    inputs: [],
    cases: [
      ...at(0, ["decide:after-append", LOST_ANSWER]),
      ...at(1, ["decide:after-append", ...CONTROL, LOST_ANSWER]),
    ],
  };
}

export const OPERATIONS: ControlOperation[] = [
  {
    name: "run",
    turns: [{ toolCalls: [note("started")] }, done("Done")],
    setup: [],
    requests: [run()],
    inputs: ["go"],
    cases: at(0, CONTROL),
  },
  {
    name: "resume-interrupted",
    turns: [{ toolCalls: [note("resumed")] }, done("Done")],
    setup: [interrupted],
    requests: [{ args: ["resume", RUN] }],
    inputs: ["go"],
    cases: at(0, CONTROL),
  },
  {
    name: "send-completed",
    turns: [{ toolCalls: [note("first")] }, done("Done"), { toolCalls: [note("second")] }, done("Again")],
    setup: [run()],
    requests: [{ args: ["send", RUN, "one more thing", ...KEY] }],
    inputs: ["go", "one more thing"],
    cases: at(0, [...CONTROL, LOST_ANSWER]),
  },
  {
    name: "fork-with-input",
    turns: [{ toolCalls: [note("parent")] }, done("Done"), { toolCalls: [note("fork")] }, done("Forked")],
    setup: [run()],
    requests: [{ args: ["fork", RUN, "--id", FORK, ...KEY, "and now the fork"] }],
    finalRun: FORK,
    inputs: ["go", "and now the fork"],
    cases: at(0, [...FORK_POINTS, LOST_ANSWER]),
  },
  {
    name: "fork-interrupted",
    turns: [{ toolCalls: [note("in the fork")] }, done("Done")],
    setup: [interrupted],
    requests: [{ args: ["fork", RUN, "--id", FORK] }],
    finalRun: FORK,
    inputs: ["go"],
    cases: at(0, FORK_POINTS),
  },
  decisions("approve"),
  decisions("reject"),
  {
    name: "sweep-interrupted",
    turns: [{ toolCalls: [note("swept")] }, done("Done")],
    setup: [interrupted],
    requests: [{ args: ["sweep", "--stale-after", "0"] }],
    inputs: ["go"],
    cases: at(0, CONTROL),
  },
  {
    // Three steps an execution: the run hands over before each tool batch (as in test/support/longRun.ts).
    name: "handoff",
    env: { RUNLOG_STEPS_PER_EXECUTION: "3" },
    turns: [...["one", "two", "three", "four"].map((n) => ({ toolCalls: [note(n)] })), done("Done")],
    setup: [],
    requests: [run()],
    retry: () => ({ args: ["resume", RUN] }),
    inputs: ["go"],
    cases: [
      {
        request: 0,
        crashAt: "handoff:after-claim",
        // The handoff died before its `resumed` event: the person's resume writes that event, as
        // its own (`by: person`, the local user its actor), for the same generation at the same seq.
        expectedLog: (reference) => {
          const first = reference.findIndex((e) => e.type === "resumed");
          const person = { by: "person", actor: localPrincipal().id };
          return reference.map((e, i) => (i === first ? { ...e, ...person } : e));
        },
      },
      { request: 0, crashAt: "handoff:after-append" },
      { request: 0, crashAt: "handoff:after-append@2" },
    ],
  },
];
