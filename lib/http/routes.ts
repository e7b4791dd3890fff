import type { Context } from "hono";
import type { Runlog } from "../api/runlog.ts";
import type { Actor } from "../api/types.ts";

/** The methods this API serves; any other is a 405. */
export type Method = "GET" | "POST";
/** A route handler; it throws to answer with an error (see errors.ts). */
export type Handler = (c: Context) => Promise<Response>;
/** Handlers by path (hono syntax) and method; every other method on a listed path is a 405. */
export type RouteTable = Record<string, Partial<Record<Method, Handler>>>;

/** What route handlers share: the library API and the request-level policies of createApp. */
export interface RouteDeps {
  /** The library API as this request's caller sees it (scoped to its principal when the app has one). */
  runlogFor(c: Context): Runlog;
  /** Who decided or cancelled: the body's `by`, else the authenticated caller, else "http". */
  actor(c: Context, body: { by?: string | undefined; reason?: string | undefined }): Actor;
  /** Refuse a model spec this API does not offer (400 naming `model`). */
  checkModel(spec: string | undefined): void;
}

/** Spread `{key: value}` only when the value is present (exactOptionalPropertyTypes forbids `key: undefined`). */
export const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/**
 * One of this app's own paths (`/replays/x`) as the caller reaches it: under the prefix the app is
 * mounted at (`outer.route("/runlog", createApp(…))`), which the request's path holds before the
 * path of the route that answers it (`route`, as the route table names it, without parameters).
 */
export function mountedPath(c: Context, route: string, path: string): string {
  const at = c.req.path;
  const prefix = at.endsWith(route) ? at.slice(0, at.length - route.length) : "";
  return `${prefix}${path}`;
}
