import type { CrashPoint, Faults } from "../../ports/runtime.ts";

/** The exit code of an injected crash: what a shell reports for a process killed by SIGKILL. */
export const CRASH_EXIT_CODE = 137;

/**
 * Fault injection at `at`: the n-th time (`at.nth`) execution passes `at.point`, the process
 * exits at once, as a kill would. No faults without one. The configuration says where
 * (lib/runtime/configSchema.ts, which accepts the points above).
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
