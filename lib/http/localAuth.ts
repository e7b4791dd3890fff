import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { HttpError } from "./errors.ts";
import { LOOPBACK_NAMES } from "./loopback.ts";

/** The cookie the viewer page sets from `?token=`, so the page's own requests carry the token. */
export const TOKEN_COOKIE = "runlog_token";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Equal in time independent of where they differ: both sides hashed to one length first. */
function sameToken(given: string, token: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * The origins of this server's own pages: its origin under each loopback name the Host check
 * (loopback.ts) accepts, same scheme and port, so a page opened at http://localhost:PORT may
 * act as one opened at http://127.0.0.1:PORT. Any other host keeps its one origin.
 */
function ownOrigins(url: URL): Set<string> {
  if (!LOOPBACK_NAMES.has(url.hostname.toLowerCase())) return new Set([url.origin]);
  return new Set(
    [...LOOPBACK_NAMES].map((name) => {
      const named = new URL(url.origin);
      named.hostname = name;
      return named.origin;
    }),
  );
}

function presented(c: Context): string | undefined {
  const header = c.req.header("authorization");
  const bearer = header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  return bearer ?? getCookie(c, TOKEN_COOKIE);
}

/**
 * `runlog serve`'s lock: every request must carry the per-start token (`Authorization: Bearer`
 * or the `runlog_token` cookie), else 401. A GET with `?token=` that matches sets the cookie
 * (HttpOnly, SameSite=Strict) and answers 303 to the same URL without it, so the token leaves
 * the address bar and history. A state-changing request from another origin (its `Origin`, or
 * `Sec-Fetch-Site: cross-site`) is 403 even with the cookie: a page elsewhere cannot steer runs.
 */
export function localAuth(token: string): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (STATE_CHANGING.has(c.req.method)) {
      const origin = c.req.header("origin");
      const site = c.req.header("sec-fetch-site");
      if (site === "cross-site" || (origin !== undefined && !ownOrigins(url).has(origin))) {
        throw new HttpError(
          403,
          "forbidden_origin",
          `this server takes ${c.req.method} only from its own pages (${url.origin}), not from ${origin ?? `a ${site} page`}`,
        );
      }
    }
    const given = presented(c);
    if (given !== undefined && sameToken(given, token)) return next();
    const fromUrl = url.searchParams.get("token");
    if (
      (c.req.method === "GET" || c.req.method === "HEAD") &&
      fromUrl !== null &&
      sameToken(fromUrl, token)
    ) {
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/" });
      url.searchParams.delete("token");
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    throw new HttpError(401, "unauthorized", refusal(given, fromUrl, token, c.req.method));
  };
}

/** Why a request without a matching token is refused, in words that say what to send instead. */
function refusal(given: string | undefined, fromUrl: string | null, token: string, method: string): string {
  if (given === undefined && fromUrl === null)
    return "this server needs its token: open the URL runlog serve printed, or send Authorization: Bearer TOKEN";
  // The right token, in the one place only a GET may carry it (the viewer's link sets a cookie from it).
  if (given === undefined && fromUrl !== null && sameToken(fromUrl, token))
    return `?token= is taken only on GET (it sets the viewer's cookie); a ${method} must send Authorization: Bearer TOKEN or the runlog_token cookie`;
  return "the token does not match this server's (it changes at every start unless --token-file is given)";
}
