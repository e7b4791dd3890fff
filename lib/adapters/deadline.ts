import { ModelUnavailableError } from "../core/errors.ts";

/**
 * `pending`, or its end as soon as `stop` aborts (a cancel or the step's deadline: see
 * stopOrDeadline), rejected with its reason. The SDK is given the same signal, which ends a
 * request under way, but not the wait a Retry-After header asks for between two attempts (openai
 * 6 waits as long as it says): this does. A later settling of `pending` is still handled (its
 * request was aborted), and ignored.
 */
export function beforeAbort<T>(pending: Promise<T>, stop: AbortSignal | undefined): Promise<T> {
  if (!stop) return pending;
  return new Promise<T>((resolve, reject) => {
    const reached = () => reject(stop.reason);
    stop.addEventListener("abort", reached, { once: true });
    pending.then(resolve, reject).finally(() => stop.removeEventListener("abort", reached));
    if (stop.aborted) reached();
  });
}

/** A call its step's deadline ended before the model sent any text: worth trying again, later. */
export function noTextBeforeDeadline(spec: string, cause: unknown): ModelUnavailableError {
  return new ModelUnavailableError(
    `${spec} is unavailable: the step's deadline came before the model sent any text`,
    { cause },
  );
}
