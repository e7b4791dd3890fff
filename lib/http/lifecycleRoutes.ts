import { outcomeView, resumeView } from "../api/views.ts";
import { asModelRefusal, HttpError } from "./errors.ts";
import { controlKey } from "./idempotency.ts";
import { callIdParam, readBody, runIdParam } from "./request.ts";
import { optional, type RouteDeps, type RouteTable } from "./routes.ts";
import { CancelBody, DecisionBody, ForkBody, MessageBody, ResumeBody } from "./schemas.ts";

/**
 * What moves a run on: resume, fork, messages, decisions, cancel. Those that
 * may start an execution answer 202, since it goes on after the response. Each takes an
 * Idempotency-Key: recorded on the event it writes, so a retry writes nothing more.
 */
export function lifecycleRoutes({ runlogFor, actor, checkModel }: RouteDeps): RouteTable {
  return {
    "/runs/:id/resume": {
      POST: async (c) => {
        const runId = runIdParam(c);
        const body = await readBody(c, ResumeBody);
        checkModel(body.model);
        const outcome = await runlogFor(c)
          .resume({
            runId,
            ...optional("model", body.model),
            ...optional("limits", body.limits),
            ...optional("modelSettings", body.modelSettings),
          })
          .catch((error: unknown) => {
            // The run id is valid by now; what the library still refuses is the model the body names,
            // or a limit or setting (named in the error's own field).
            throw asModelRefusal(error, body.model);
          });
        if (outcome.resume.resumed) return c.json(resumeView(outcome), 202);
        const why = outcome.resume.classification;
        // As the CLI does: a completed run is answered with its outcome; any other dead end is a conflict.
        if (why.reason === "completed") return c.json(resumeView(outcome), 200);
        throw new HttpError(409, "not_resumable", why.description, { reason: why.reason });
      },
    },
    "/runs/:id/fork": {
      POST: async (c) => {
        const runId = runIdParam(c);
        const body = await readBody(c, ForkBody);
        const outcome = await runlogFor(c).fork({
          runId,
          ...optional("atSeq", body.atSeq),
          ...optional("input", body.input),
          ...optional("forkId", body.forkId),
          ...optional("model", body.model),
          ...optional("modelSettings", body.modelSettings),
          ...controlKey(c),
        });
        return c.json(outcomeView(outcome), 202);
      },
    },
    "/runs/:id/messages": {
      POST: async (c) => {
        const runId = runIdParam(c);
        const { message } = await readBody(c, MessageBody);
        return c.json(outcomeView(await runlogFor(c).send(runId, message, controlKey(c))), 202);
      },
    },
    "/runs/:id/approvals/:callId": {
      POST: async (c) => {
        const runId = runIdParam(c);
        const callId = callIdParam(c);
        const body = await readBody(c, DecisionBody);
        const who = actor(c, body);
        const keyed = controlKey(c);
        const outcome = body.approved
          ? await runlogFor(c).approve(runId, callId, who, keyed)
          : await runlogFor(c).reject(runId, callId, who, keyed);
        // 202 either way: the last decision resumes the run, which goes on after this answer.
        return c.json(outcomeView(outcome), 202);
      },
    },
    "/runs/:id/cancel": {
      POST: async (c) => {
        const runId = runIdParam(c);
        const body = await readBody(c, CancelBody);
        const outcome = await runlogFor(c).cancel(runId, actor(c, body), controlKey(c));
        return c.json(outcomeView(outcome), 200);
      },
    },
  };
}
