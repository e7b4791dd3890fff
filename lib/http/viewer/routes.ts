import { type Context, Hono } from "hono";
import * as z from "zod";
import type { Runlog } from "../../api/runlog.ts";
import { RUN_STATUSES, type RunStatus } from "../../core/status.ts";
import { errorAnswer, invalidInput } from "../errors.ts";
import { readQuery, runIdParam } from "../request.ts";
import { optional } from "../routes.ts";
import { ListQuery, LiveQuery, runId as runIdField, Seq } from "../schemas.ts";
import { comparePage } from "./comparePage.ts";
import type { Html } from "./html.ts";
import { ASSETS, errorPage, PAGE_POLICY } from "./layout.ts";
import { runPage, timelineItems, timelinePage } from "./runPage.ts";
import { runState } from "./runState.ts";
import { runsPage } from "./runsPage.ts";
import { VIEWER_SCRIPT } from "./script/index.ts";
import { VIEWER_STYLE } from "./style.ts";

/** `/?status&parent&cursor&limit`: the list's query, an empty status meaning any. */
const RunsQuery = ListQuery.extend({
  status: z
    .string()
    .superRefine((value, ctx) => {
      if (value !== "" && !(RUN_STATUSES as readonly string[]).includes(value))
        ctx.addIssue({
          code: "custom",
          message: `expected one of ${RUN_STATUSES.join(", ")} (or empty for any), got ${JSON.stringify(value)}`,
        });
    })
    .optional(),
});
/** `?after`: the timeline from the event after this seq (as GET /runs/{id}/live reads it). */
const AfterQuery = LiveQuery;
/** `?with`: the run (a replay) a run is compared with. */
const CompareQuery = z.strictObject({ with: runIdField("with") });
/** `?last`: the seq of the last event the page shows (the most a fork can be made at). */
const StateQuery = z.strictObject({ last: Seq.optional() });

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": PAGE_POLICY,
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

const answer = (markup: Html, status = 200, headers: Record<string, string> = {}) =>
  new Response(markup.text, { status, headers: { ...HTML_HEADERS, ...headers } });

const asset = (text: string, type: string) => () =>
  new Response(text, {
    headers: {
      "content-type": `${type}; charset=utf-8`,
      "x-content-type-options": "nosniff",
      "cache-control": "no-cache",
    },
  });

/**
 * The run viewer: HTML pages over the library API, for `runlog serve` (AppOptions.viewer). Its
 * actions and live updates go through the JSON routes; its errors are pages with the status and
 * message the JSON routes would give. `report` is told about failures of ours.
 */
export function viewerRoutes(
  runlogFor: (c: Context) => Runlog,
  report: (error: unknown, c: Context) => void,
): Hono {
  const viewer = new Hono();
  viewer.get("/", async (c) => {
    const { status, parent, cursor, limit } = readQuery(c, RunsQuery);
    const query = {
      ...optional("status", status === "" ? undefined : (status as RunStatus | undefined)),
      ...optional("parent", parent),
      ...optional("cursor", cursor),
      ...optional("limit", limit),
    };
    return answer(await runsPage(runlogFor(c), query));
  });
  viewer.get("/runs/:id/view", async (c) => {
    const { after } = readQuery(c, AfterQuery);
    return answer(await runPage(runlogFor(c), runIdParam(c), after ?? 0));
  });
  viewer.get("/runs/:id/compare", async (c) => {
    const runId = runIdParam(c);
    // Said before the schema's words for a missing string, which name no run.
    if (c.req.query("with") === undefined)
      throw invalidInput("with", `with is required: the run to compare ${runId} with (?with=RUN_ID)`);
    return answer(await comparePage(runlogFor(c), runId, readQuery(c, CompareQuery).with));
  });
  // The fragments the page's script fetches: new timeline entries, and the state after a change.
  viewer.get("/runs/:id/view/events", async (c) => {
    const runId = runIdParam(c);
    const { events, next } = await timelinePage(runlogFor(c), runId, readQuery(c, AfterQuery).after ?? 0);
    return answer(
      timelineItems(runId, events),
      200,
      next === undefined ? {} : { "runlog-next": String(next) },
    );
  });
  viewer.get("/runs/:id/view/state", async (c) => {
    const runId = runIdParam(c);
    return answer(await runState(runlogFor(c), runId, readQuery(c, StateQuery).last ?? 1));
  });
  viewer.get(`${ASSETS}/viewer.js`, asset(VIEWER_SCRIPT, "text/javascript"));
  viewer.get(`${ASSETS}/viewer.css`, asset(VIEWER_STYLE, "text/css"));
  viewer.onError((error, c) => {
    const { status, body, internal } = errorAnswer(error);
    if (internal) report(error, c);
    return answer(errorPage(status, body.error.message), status);
  });
  return viewer;
}
