import type { MiddlewareHandler } from "hono";

/**
 * Headers every answer carries, JSON, HTML, event streams and errors alike: a browser never
 * guesses another type than the one sent (`nosniff`), and a page never tells another site which
 * run it showed (`no-referrer`: run ids and the local token stay on this origin).
 */
export const SAFE_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
} as const;

/** The middleware that sets SAFE_HEADERS on every answer, after its handler (or the error handler) made it. */
export function safeHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SAFE_HEADERS)) c.res.headers.set(name, value);
  };
}
