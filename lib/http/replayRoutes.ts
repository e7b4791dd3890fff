import { IdTakenError } from "../core/errors.ts";
import { keyReused } from "./errors.ts";
import { callerKey, controlKey } from "./idempotency.ts";
import { check, readBody } from "./request.ts";
import { mountedPath, optional, type RouteDeps, type RouteTable } from "./routes.ts";
import { BatchId, ReplaysBody } from "./schemas.ts";

/**
 * Replay batches (docs/guides/replay.md): start one, read its report. The runs of a batch start
 * through the normal start path and execute on their own (on AWS, Step Functions executions), so
 * the start answers 202 with the batch's Location at once; the report is computed on each read.
 */
export function replayRoutes({ runlogFor, checkModel }: RouteDeps): RouteTable {
  return {
    "/runs/replays": {
      POST: async (c) => {
        const body = await readBody(c, ReplaysBody);
        const runlog = runlogFor(c);
        const { idempotencyKey } = controlKey(c);
        checkModel(body.model);
        let started: Awaited<ReturnType<typeof runlog.startReplays>>;
        try {
          started = await runlog.startReplays({
            runIds: body.runIds,
            model: body.model,
            ...optional("tools", body.tools),
            // Keys are per caller: another owner's equal key names another batch.
            ...optional(
              "idempotencyKey",
              idempotencyKey === undefined ? undefined : callerKey(runlog, idempotencyKey),
            ),
          });
        } catch (error) {
          // Replay 0 records the whole request: a key's batch (its ids derived from the key) started
          // with another body refuses it. Any other conflict (a run still running) is its own answer.
          if (idempotencyKey !== undefined && error instanceof IdTakenError)
            throw keyReused(error.runId ?? error.id, "replay request");
          throw error;
        }
        // Where the app is mounted: `/runlog/replays/…` under `outer.route("/runlog", createApp(…))`.
        c.header("Location", mountedPath(c, "/runs/replays", `/replays/${started.batchId}`));
        // A repeat names the batch that exists and starts nothing: 200, not 202.
        return c.json({ batchId: started.batchId, runs: started.runs }, started.created ? 202 : 200);
      },
    },
    "/replays/:batchId": {
      GET: async (c) => {
        const batchId = check(BatchId, c.req.param("batchId"), "batchId");
        return c.json(await runlogFor(c).replayReport(batchId));
      },
    },
  };
}
