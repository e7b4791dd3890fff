import { InvalidInputError } from "../../core/errors.ts";
import type { CrashPoint, Faults } from "../../ports/runtime.ts";

export const CRASH_POINTS: readonly CrashPoint[] = [
  "model:before",
  "model:after-call",
  "model:after-append",
  "tool:after-start",
  "tool:after-run",
  "tool:after-append",
];

/**
 * Points inside a handoff to a new execution (lease moved, then `resumed`
 * written), which only long runs pass: accepted by RUNLOG_CRASH_AT, kept out
 * of CRASH_POINTS so every run still passes each of those.
 */
export const HANDOFF_CRASH_POINTS: readonly CrashPoint[] = ["handoff:after-claim", "handoff:after-append"];

/**
 * Points inside the control operations (start, resume, send, fork, approve/reject, sweep), which
 * only those commands pass: accepted by RUNLOG_CRASH_AT for the control matrix
 * (test/reliability/controlMatrix.test.ts), kept out of CRASH_POINTS for the same reason.
 */
export const CONTROL_CRASH_POINTS: readonly CrashPoint[] = [
  "control:after-claim",
  "control:after-append",
  "control:before-execute",
  "fork:after-copy",
  "decide:after-append",
];

/** The exit code of an injected crash: what a shell reports for a process killed by SIGKILL. */
export const CRASH_EXIT_CODE = 137;

/**
 * Fault injection from `RUNLOG_CRASH_AT=<point>[@<n>]`: the n-th time (default
 * the first) execution passes that point, the process exits at once, as a kill would.
 */
export function faultsFromEnv(
  value: string | undefined,
  exit: (code: number) => never = process.exit,
): Faults {
  if (value === undefined || value === "") return { reached: () => {} };
  const match = /^([a-z]+:[a-z-]+)(?:@(\d+))?$/.exec(value);
  const point = match?.[1] as CrashPoint | undefined;
  const known = [...CRASH_POINTS, ...HANDOFF_CRASH_POINTS, ...CONTROL_CRASH_POINTS];
  if (!match || !point || !known.includes(point)) {
    throw new InvalidInputError(
      `RUNLOG_CRASH_AT=${JSON.stringify(value)} is not <point>[@<n>] with a point among: ${known.join(", ")}`,
    );
  }
  const nth = match[2] === undefined ? 1 : Number(match[2]);
  if (nth < 1) throw new InvalidInputError(`RUNLOG_CRASH_AT: n must be 1 or more, got ${match[2]}`);
  let seen = 0;
  return {
    reached: (at) => {
      if (at === point && ++seen === nth) exit(CRASH_EXIT_CODE);
    },
  };
}
