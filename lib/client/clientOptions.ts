/*
 * What a client is told (the API's URL, how to authenticate, retries, the fetch to use) and the
 * transport made from it, each option checked when the client is made.
 */
import { InvalidInputError } from "../core/errors.ts";
import { authenticator, type ClientAuth } from "./auth.ts";
import { type RetryOptions, retryPolicy } from "./retry.ts";
import type { TransportDeps } from "./transport.ts";

/** Where the API is and how to call it. */
export interface ClientOptions {
  /** The API's base URL: the stack's `ApiUrl` output, a custom domain (with its base path), or `runlog serve`'s address. */
  url: string | URL;
  /** How the client proves who it is: SigV4 (IAM), a bearer token (a JWT, `runlog serve`'s token), or none. */
  auth: ClientAuth;
  /** Retries of 429s, 5xx and failed connections. @default 4 attempts, 250 ms doubling to at most 20 s */
  retry?: RetryOptions;
  /** The fetch to send with (a proxy's, a test's). @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
}

const OPTION_KEYS: readonly string[] = ["url", "auth", "retry", "fetch"];

/** The transport of a client: the options checked, the authenticator made (a bad option fails here, not on the first call). */
export function transportDeps(options: ClientOptions): TransportDeps {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidInputError("options: expected an object { url, auth, retry?, fetch? }", {
      field: "options",
    });
  }
  const unknown = Object.keys(options).find((key) => !OPTION_KEYS.includes(key));
  if (unknown !== undefined) {
    throw new InvalidInputError(
      `${unknown}: not a client option; the options are ${OPTION_KEYS.join(", ")}`,
      {
        field: unknown,
      },
    );
  }
  let url: URL;
  try {
    url = new URL(options?.url);
  } catch {
    throw new InvalidInputError(`url: expected an absolute URL, got ${JSON.stringify(options?.url)}`, {
      field: "url",
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidInputError(`url: expected an http or https URL, got ${url.protocol}`, { field: "url" });
  }
  if (typeof options.auth !== "object" || options.auth === null) {
    throw new InvalidInputError('auth: expected { type: "sigv4" | "bearer" | "none", … }', { field: "auth" });
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw new InvalidInputError(`fetch: expected a fetch function, got ${typeof options.fetch}`, {
      field: "fetch",
    });
  }
  return {
    url,
    authenticate: authenticator(options.auth, url),
    fetch: options.fetch ?? globalThis.fetch,
    retry: retryPolicy(options.retry),
  };
}
