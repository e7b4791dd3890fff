import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { LifecycleFeed } from "../api/lifecycleFeed.ts";
import type { LiveFeed } from "../api/liveFeed.ts";
import type { Runlog } from "../api/runlog.ts";
import type { Principal } from "../core/principal.ts";
import { redact } from "../core/redact.ts";
import { errorAnswer, HttpError, invalidInput } from "./errors.ts";
import { eventRoutes } from "./eventRoutes.ts";
import { safeHeaders } from "./headers.ts";
import { lifecycleFeedRoutes } from "./lifecycleFeedRoutes.ts";
import { lifecycleRoutes } from "./lifecycleRoutes.ts";
import { liveRoutes } from "./liveRoutes.ts";
import { localAuth } from "./localAuth.ts";
import { openApiRoutes } from "./openApiRoute.ts";
import { replayRoutes } from "./replayRoutes.ts";
import { optional, type RouteDeps, type RouteTable } from "./routes.ts";
import { runRoutes } from "./runRoutes.ts";
import { MAX_BODY_BYTES } from "./schemas.ts";
import { viewerRoutes } from "./viewer/routes.ts";

/** Request-level policies of the app; everything else comes from the Runlog it serves. */
export interface AppOptions {
  /**
   * Who sent the request, as its authenticator says (IAM, a JWT authorizer, the local user):
   * every route is then scoped to it (`Runlog.as`): its own runs only, 401 without one, and what
   * it does recorded as its own. @default none: every run is served, to anyone (a trusted network only)
   */
  principal?: (c: Context) => Principal | undefined;
  /**
   * Accept `scripted:FILE` model specs. Off for a deployed API: the server would
   * read any path a caller names and quote it in errors. @default false
   */
  allowScriptFiles?: boolean;
  /**
   * Require this token on every route (`runlog serve`'s lock: see localAuth.ts), and refuse
   * state-changing requests from other origins. @default none: the authenticator in front decides
   */
  localToken?: string;
  /** Told about failures of ours (500, 503). @default writes to stderr */
  onError?: (error: unknown, c: Context) => void;
  /**
   * This process's runs as they happen (openLocal's `live`): `GET /runs/{id}/live` pushes them and a
   * long-poll wakes on the next event. @default none: /live answers 404 live_unavailable and a long-poll polls the store
   */
  live?: LiveFeed;
  /**
   * The lifecycle events of this process's runs (`openLocal({ onLifecycle: feed.tell })`):
   * `GET /lifecycle` streams them. @default none: /lifecycle answers 404 lifecycle_unavailable (on AWS they are on the bus)
   */
  lifecycle?: LifecycleFeed;
  /** Serve the run viewer's HTML pages at `/` and `/runs/{id}/view` (lib/http/viewer/). @default false */
  viewer?: boolean;
}

const BUILT_IN_SCRIPTS = new Set(["scripted:demo"]);

/** The HTTP API over a Runlog: the same app behind API Gateway and `runlog serve`. */
export function createApp(runlog: Runlog, options: AppOptions = {}): Hono {
  const app = new Hono();
  app.use("*", safeHeaders());
  // The library API as each request's principal sees it, set by the middleware below.
  const scoped = new WeakMap<Context, Runlog>();
  const deps: RouteDeps = {
    runlogFor: (c) => scoped.get(c) ?? runlog,
    actor: (c, body) => ({
      // The caller acts; a body's `by` is whom for (a scoped Runlog records it as onBehalfOf).
      by: body.by ?? scoped.get(c)?.principal?.id ?? runlog.principal?.id ?? "http",
      ...optional("reason", body.reason),
    }),
    checkModel: (spec) => {
      if (spec?.startsWith("scripted:") && !BUILT_IN_SCRIPTS.has(spec) && !options.allowScriptFiles) {
        throw invalidInput(
          "model",
          "model: script files are not offered by this API; use openai:NAME or scripted:demo",
        );
      }
    },
  };
  // The document describes the API and holds no run: served before any authentication.
  const described = openApiRoutes();
  register(app, described);
  if (options.localToken !== undefined) app.use("*", localAuth(options.localToken));
  // Counted while reading, so a body without Content-Length (chunked) is cut off at the limit too.
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new HttpError(
          413,
          "payload_too_large",
          `the request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`,
        );
      },
    }),
  );
  // Every route, known or not, answers 401 to a request without a principal when the app has an authenticator.
  const authenticate = options.principal;
  if (authenticate !== undefined) {
    app.use("*", async (c, next) => {
      const principal = authenticate(c);
      if (principal === undefined) {
        throw new HttpError(
          401,
          "unauthorized",
          "the request carries no identity this API accepts: sign it (IAM) or send a token",
        );
      }
      scoped.set(c, runlog.as(principal));
      await next();
    });
  }
  const report = options.onError ?? logError;
  const tables = [
    runRoutes(deps),
    replayRoutes(deps),
    eventRoutes(deps, options.live),
    lifecycleRoutes(deps),
    liveRoutes(deps, options.live, report),
    lifecycleFeedRoutes(deps, options.lifecycle),
  ];
  // Every handler before any 405: a literal path (POST /runs/redrive) never shadows a pattern's
  // other methods (GET /runs/:id of a run named "redrive").
  for (const table of tables) register(app, table);
  for (const table of [described, ...tables]) refuseOtherMethods(app, table);
  if (options.viewer) app.route("/", viewerRoutes(deps.runlogFor, report));
  const noRoute = (c: Context) =>
    c.json({ error: { code: "not_found", message: `no route ${c.req.method} ${c.req.path}` } }, 404);
  // A route of its own, last: hono does not carry a sub-app's notFound over when it is mounted
  // (`outer.route("/runlog", app)`), and an unknown path under the prefix must still answer JSON.
  app.all("*", noRoute);
  app.notFound(noRoute);
  app.onError((error, c) => {
    const { status, body, internal } = errorAnswer(error);
    if (internal) report(error, c);
    return c.json(body, status);
  });
  return app;
}

function register(app: Hono, table: RouteTable): void {
  for (const [path, methods] of Object.entries(table)) {
    for (const [method, handler] of Object.entries(methods)) app.on(method, path, handler);
  }
}

function refuseOtherMethods(app: Hono, table: RouteTable): void {
  for (const [path, methods] of Object.entries(table)) {
    const allowed = Object.keys(methods);
    // Registered after the real handlers, so it answers only the methods they do not take.
    app.all(path, (c) => {
      c.header("Allow", allowed.join(", "));
      return c.json(
        {
          error: {
            code: "method_not_allowed",
            message: `${c.req.method} is not allowed on ${c.req.path}; use ${allowed.join(" or ")}`,
          },
        },
        405,
      );
    });
  }
}

function logError(error: unknown, c: Context): void {
  const detail = redact(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.stderr.write(`runlog http: ${c.req.method} ${c.req.path}: ${detail}\n`);
}
