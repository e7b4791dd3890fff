export interface RepeatedCheckOptions {
  /** How often to check. */
  intervalMs: number;
  /** One check: resolves when it could tell, throws when it could not (the next one tries again). */
  check: () => Promise<void>;
  /** False while the check is not wanted (its work is ending): ticks are skipped. @default always */
  wanted?: () => boolean;
  /** How long checks may keep failing before `failing` is told. */
  failingForMs: number;
  /** Told at each failed check once none has succeeded for `failingForMs`, with that time and the last error. */
  failing: (ms: number, error: unknown) => void;
  /** Let the process exit while the timer runs (a step waits for its own work, not for this). */
  unref?: boolean;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Run `check` every `intervalMs`, one at a time (a slow check is not stacked on by the next
 * tick). A failed check is repaired by the next one; checks failing for `failingForMs` in a row
 * are reported, never swallowed. What a lease renewal and a cancel watch share. Returns the
 * function that stops checking.
 */
export function checkRepeatedly(options: RepeatedCheckOptions): () => void {
  const now = options.now ?? Date.now;
  // Starting counts as a success: the claim, or the step's own read, came just before.
  let succeededAt = now();
  let checking = false;
  const tick = async () => {
    if (checking || (options.wanted && !options.wanted())) return;
    checking = true;
    try {
      await options.check();
      succeededAt = now();
    } catch (error) {
      const since = now() - succeededAt;
      if (since >= options.failingForMs) options.failing(since, error);
    } finally {
      checking = false;
    }
  };
  const timer = setInterval(() => void tick(), options.intervalMs);
  if (options.unref) timer.unref();
  return () => clearInterval(timer);
}
