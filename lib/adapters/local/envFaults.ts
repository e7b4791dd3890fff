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
 * written), which only long runs pass: accepted by the configuration's crash point, kept out
 * of CRASH_POINTS so every run still passes each of those.
 */
export const HANDOFF_CRASH_POINTS: readonly CrashPoint[] = ["handoff:after-claim", "handoff:after-append"];

/**
 * Points inside the control operations (start, resume, send, fork, approve/reject, sweep), which
 * only those commands pass: accepted by the configuration's crash point for the control matrix
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
 * Fault injection at `at`: the n-th time (`at.nth`) execution passes `at.point`, the process
 * exits at once, as a kill would. No faults without one. The configuration says where
 * (lib/runtime/config.ts, which accepts the points above).
 */
export function crashFaults(
  at: { point: CrashPoint; nth: number } | undefined,
  exit: (code: number) => never = process.exit,
): Faults {
  if (at === undefined) return { reached: () => {} };
  let seen = 0;
  return {
    reached: (point) => {
      if (point === at.point && ++seen === at.nth) exit(CRASH_EXIT_CODE);
    },
  };
}
