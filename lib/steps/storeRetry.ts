import { ConflictError, RetryableError } from "../core/errors.ts";
import { STORE_RETRY_MS } from "../workflow/timeouts.ts";
import type { StepDeps } from "./deps.ts";

/** The first wait after a failed store write, doubled after each further failure up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 2_000;

/**
 * Store work a step has done (a tool's result, a model's response) with `write`, trying again in
 * this process while the store fails in a way a later attempt may not (a RetryableError; a
 * ConflictError of a writer that kept losing its seq), until `deadline` (epoch ms, see
 * stepDeadline) or STORE_RETRY_MS after the first failure, whichever comes first. Then the last
 * error is thrown: the step fails and the workflow retries it. Anything else (a newer generation,
 * a cancel, a permanent store error) is thrown at once. Time is the injected clock's.
 */
export async function storeWithin<T>(deps: StepDeps, deadline: number, write: () => Promise<T>): Promise<T> {
  let giveUpAt: number | undefined;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof RetryableError || error instanceof ConflictError)) throw error;
      const now = deps.clock.now().getTime();
      giveUpAt ??= Math.min(deadline, now + STORE_RETRY_MS);
      if (now + wait > giveUpAt || deps.signal?.aborted) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
