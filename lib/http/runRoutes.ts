import type { Runlog } from "../api/runlog.ts";
import { headView, outcomeView, resumePointView } from "../api/views.ts";
import { IdTakenError, InvalidInputError, NotFoundError } from "../core/errors.ts";
import type { RunPage } from "../ports/eventStore.ts";
import { asModelRefusal, invalidInput, keyReused } from "./errors.ts";
import { requestedRunId } from "./idempotency.ts";
import { readBody, readQuery, runIdParam } from "./request.ts";
import { optional, type RouteDeps, type RouteTable } from "./routes.ts";
import { ListQuery, RedriveBody, StartBody } from "./schemas.ts";

/** Starting, listing and reading runs. */
export function runRoutes({ runlogFor, checkModel }: RouteDeps): RouteTable {
  return {
    "/runs": {
      POST: async (c) => {
        const body = await readBody(c, StartBody);
        const { runId, fromKey } = await requestedRunId(c, runlogFor(c), body.runId);
        checkModel(body.model);
        let started: Awaited<ReturnType<typeof Runlog.prototype.start>>;
        try {
          started = await runlogFor(c).start({
            agent: body.agent,
            input: body.input,
            ...optional("model", body.model),
            ...optional("runId", runId),
            ...optional("metadata", body.metadata),
            ...optional("limits", body.limits),
            ...optional("modelSettings", body.modelSettings),
          });
        } catch (error) {
          // The registry's NotFoundError is about the body's agent, not about this URL.
          if (error instanceof NotFoundError) throw invalidInput("agent", error.message);
          // The body is valid by now; what the library still refuses is the model it names.
          // A limit or setting above the agent's names its own field (limits.maxTurns …).
          if (error instanceof InvalidInputError) throw asModelRefusal(error, body.model);
          // The run id was derived from the key: that id taken means the key named another request.
          if (fromKey && runId !== undefined && error instanceof IdTakenError) throw keyReused(runId);
          throw error;
        }
        // A repeat names the run that exists and starts nothing: 200, not 202.
        return c.json(outcomeView(started), started.created ? 202 : 200);
      },
      GET: async (c) => {
        const query = readQuery(c, ListQuery);
        let page: RunPage;
        try {
          page = await runlogFor(c).list({
            ...optional("limit", query.limit),
            ...optional("cursor", query.cursor),
            ...optional("status", query.status),
            ...optional("parent", query.parent),
            ...optional("childrenOf", query.childrenOf),
          });
        } catch (error) {
          // Every store refuses a cursor it did not issue (lib/adapters/paging.ts decodePosition): say it is the cursor.
          if (query.cursor !== undefined && error instanceof InvalidInputError) {
            throw invalidInput("cursor", "cursor: expected a cursor returned by GET /runs");
          }
          throw error;
        }
        return c.json({ runs: page.runs.map(headView), ...optional("cursor", page.cursor) });
      },
    },
    "/runs/redrive": {
      POST: async (c) => {
        const body = await readBody(c, RedriveBody);
        const report = await runlogFor(c).redrive({
          ...optional("sinceMs", body.sinceMs),
          ...optional("agent", body.agent),
          ...optional("dryRun", body.dryRun),
          ...optional("concurrency", body.concurrency),
          ...optional("perSecond", body.perSecond),
        });
        // As the other routes that start executions: 202, the resumed runs go on after the answer.
        return c.json(report, report.dryRun ? 200 : 202);
      },
    },
    "/runs/:id": {
      GET: async (c) => c.json(outcomeView(await runlogFor(c).outcome(runIdParam(c)))),
    },
    "/runs/:id/resume-point": {
      GET: async (c) => c.json(resumePointView(await runlogFor(c).resumePoint(runIdParam(c)))),
    },
  };
}
