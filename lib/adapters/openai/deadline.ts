import { ModelUnavailableError } from "../../core/errors.ts";

/**
 * `pending`, or its end as soon as `deadline` aborts, rejected with the deadline's reason. The
 * SDK is given the deadline as its signal too, which ends a request under way, but not the wait
 * a Retry-After header asks for between two attempts (openai 6 waits as long as it says): this
 * does. A later settling of `pending` is still handled (its request was aborted), and ignored.
 */
export function beforeDeadline<T>(pending: Promise<T>, deadline: AbortSignal | undefined): Promise<T> {
  if (!deadline) return pending;
  return new Promise<T>((resolve, reject) => {
    const reached = () => reject(deadline.reason);
    deadline.addEventListener("abort", reached, { once: true });
    pending.then(resolve, reject).finally(() => deadline.removeEventListener("abort", reached));
    if (deadline.aborted) reached();
  });
}

/** A call its step's deadline ended before the model sent any text: worth trying again, later. */
export function noTextBeforeDeadline(spec: string, cause: unknown): ModelUnavailableError {
  return new ModelUnavailableError(
    `${spec} is unavailable: the step's deadline came before the model sent any text`,
    { cause },
  );
}
