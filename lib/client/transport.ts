import { PermanentError, RetryableError } from "../core/errors.ts";
import { errorFromResponse } from "./errors.ts";
import type { Authenticate } from "./outgoing.ts";
import { delayBefore, type RetryPolicy, retryAfterMs } from "./retry.ts";

/** One request to the API. */
export interface ApiRequest {
  method: "GET" | "POST";
  /** The path under the client's URL, its parameters already encoded (`/runs/r1/cancel`). */
  path: string;
  query?: Record<string, string | number | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as the Idempotency-Key header: the same on every attempt, so a retry is the same request. */
  idempotencyKey?: string;
  /** More headers (Last-Event-ID, Accept). */
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** What the transport needs: where, how to prove who it is, how to send and how to retry. */
export interface TransportDeps {
  url: URL;
  authenticate: Authenticate;
  fetch: typeof globalThis.fetch;
  retry: RetryPolicy;
}

/** The URL of a path under the client's URL (which may have a path of its own: a custom domain's base path). */
export function urlOf(base: URL, path: string, query: ApiRequest["query"] = {}): URL {
  const url = new URL(`${base.pathname.replace(/\/$/, "")}${path}`, base);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

/**
 * Send a request, trying again on a 429, a 5xx or a failed connection (Retry-After honoured,
 * otherwise capped exponential backoff, at most `retry.attempts` in all, abortable), and answer the
 * first response that is not an error. An error answer throws the runlog error its code stands for.
 */
export async function send(deps: TransportDeps, request: ApiRequest): Promise<Response> {
  const url = urlOf(deps.url, request.path, request.query);
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  for (let attempt = 0; ; attempt++) {
    request.signal?.throwIfAborted();
    const headers = new Headers({ accept: "application/json", ...request.headers });
    if (body !== undefined) headers.set("content-type", "application/json");
    if (request.idempotencyKey !== undefined) headers.set("idempotency-key", request.idempotencyKey);
    await deps.authenticate({
      method: request.method,
      url,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    let response: Response;
    try {
      response = await deps.fetch(url, {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      const failed = new RetryableError(`${request.method} ${url.pathname}: could not reach ${url.origin}`, {
        cause: error,
      });
      const wait =
        attempt + 1 < deps.retry.attempts ? delayBefore(attempt, deps.retry, undefined) : undefined;
      if (wait === undefined) throw failed;
      await deps.retry.sleep(wait, request.signal);
      continue;
    }
    if (response.ok) return response;
    const asked = retryAfterMs(response.headers.get("retry-after"));
    const error = errorFromResponse(response.status, await response.text(), asked, request.idempotencyKey);
    // By the class its code stands for: a 429 or a 5xx, but not a 501 index_missing or a corrupt event.
    const wait =
      error instanceof RetryableError && attempt + 1 < deps.retry.attempts
        ? delayBefore(attempt, deps.retry, asked)
        : undefined;
    if (wait === undefined) throw error;
    await deps.retry.sleep(wait, request.signal);
  }
}

/**
 * Send a request and read its JSON answer, with the status (a repeat of a start is 200, a new one
 * 202). An answer that is not JSON (a web page at a wrong URL, a proxy's) is a PermanentError
 * naming its status and content type, never a SyntaxError.
 */
export async function sendJson<T>(
  deps: TransportDeps,
  request: ApiRequest,
): Promise<{ status: number; body: T }> {
  const response = await send(deps, request);
  const type = response.headers.get("content-type") ?? "no content type";
  const text = await response.text();
  const notJson = (why: string) =>
    new PermanentError(
      `${request.method} ${urlOf(deps.url, request.path).pathname} answered ${response.status} with ${why} ` +
        `(${type}), not the API's JSON: is the client's url the API's base URL?`,
    );
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) throw notJson("a body that is not JSON");
  try {
    return { status: response.status, body: JSON.parse(text) as T };
  } catch {
    throw notJson("a body that does not parse as JSON");
  }
}
