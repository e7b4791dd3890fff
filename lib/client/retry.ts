import { InvalidInputError } from "../core/errors.ts";

/** How the client tries again after a 429, a 5xx or a connection that failed. */
export interface RetryOptions {
  /** Attempts in all, the first included (1: never retry). @default 4 */
  attempts?: number;
  /** The first wait when the answer gives no Retry-After; doubled each attempt, with jitter. @default 250 */
  baseDelayMs?: number;
  /**
   * The longest wait between two attempts. A Retry-After longer than this is not waited for:
   * the error is thrown at once, its `response.retryAfterMs` saying when to come back. @default 20_000
   */
  maxDelayMs?: number;
  /** How to wait (abortable). @default a timer */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** RetryOptions with every default applied. */
export type RetryPolicy = Required<RetryOptions>;

/** The most attempts a call makes: enough for any backoff, few enough that a typo (1e9) is refused. */
export const MAX_ATTEMPTS = 100;

/** A whole number option within [min, max], or InvalidInputError naming it (`retry.attempts` …). */
function whole(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    const got =
      typeof value === "string" ? JSON.stringify(value) : typeof value === "number" ? value : typeof value;
    throw new InvalidInputError(`${field}: expected a whole number from ${min} to ${max}, got ${got}`, {
      field,
    });
  }
  return value;
}

const RETRY_KEYS: readonly string[] = ["attempts", "baseDelayMs", "maxDelayMs", "sleep"];

/** RetryOptions checked (a bad one, or an unknown key, is an InvalidInputError naming it, never clamped), with the defaults. */
export function retryPolicy(options: RetryOptions | undefined = {}): RetryPolicy {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidInputError(
      "retry: expected an object { attempts?, baseDelayMs?, maxDelayMs?, sleep? }",
      {
        field: "retry",
      },
    );
  }
  const unknown = Object.keys(options).find((key) => !RETRY_KEYS.includes(key));
  if (unknown !== undefined) {
    throw new InvalidInputError(
      `retry.${unknown}: not a retry option; the options are ${RETRY_KEYS.join(", ")}`,
      { field: `retry.${unknown}` },
    );
  }
  const day = 24 * 60 * 60 * 1000;
  const maxDelayMs = whole(options.maxDelayMs, "retry.maxDelayMs", 0, day, 20_000);
  const baseDelayMs = whole(options.baseDelayMs, "retry.baseDelayMs", 0, day, Math.min(250, maxDelayMs));
  if (options.sleep !== undefined && typeof options.sleep !== "function") {
    throw new InvalidInputError("retry.sleep: expected a function (ms, signal) => Promise<void>", {
      field: "retry.sleep",
    });
  }
  return {
    attempts: whole(options.attempts, "retry.attempts", 1, MAX_ATTEMPTS, 4),
    baseDelayMs,
    maxDelayMs,
    sleep: options.sleep ?? sleep,
  };
}

/** Retry-After in milliseconds: seconds (`120`) or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before attempt `retry` + 1 (retry counts from 0): Retry-After where the server gave one,
 * else capped exponential backoff with full jitter, so many clients throttled at once do not come
 * back together. Undefined: the server asked for longer than maxDelayMs, so do not wait.
 */
export function delayBefore(
  retry: number,
  policy: RetryPolicy,
  asked: number | undefined,
): number | undefined {
  if (asked !== undefined) return asked <= policy.maxDelayMs ? asked : undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Wait `ms`, or reject with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
