import { Runlog } from "../lib/api/runlog.ts";
import { lambdaPrincipal } from "../lib/http/lambda.ts";
import { apiHandler } from "../lib/http/public.ts";
import type { StepObserver } from "../lib/steps/deps.ts";
import { awsDeps } from "./deps.ts";
import { type LambdaContext, observed } from "./observability/invocation.ts";

type ApiHandler = ReturnType<typeof apiHandler>;
let serve: ApiHandler | undefined;

/**
 * The observer of the request being served: the app is built once per instance, and an instance
 * serves one request at a time, so what the library appends (a resume's `resumed`, a lost seq
 * race) is counted and logged as that request's, as every other function counts its own.
 */
let current: StepObserver | undefined;
const requestObserver: StepObserver = {
  appended: (runId, event) => current?.appended(runId, event),
  lostRace: (runId, seq) => current?.lostRace?.(runId, seq),
  gaveUp: (runId, resumes) => current?.gaveUp?.(runId, resumes),
};

/** What of an API Gateway (HTTP API v2) event names the request in the logs: never its body. */
interface Request {
  routeKey?: string;
  pathParameters?: Record<string, string | undefined>;
}

/**
 * The HTTP API behind API Gateway: lib/http's app over the library API, built once per instance.
 * Each request is observed like a step (`step: "api"`, its route and run id in the logs and the
 * trace, `Steps` and `StepDuration` by outcome, and the events it appends counted like a step's:
 * `Resumes`, `LostSeqRaces`); errors are answered by the app as HTTP statuses. The caller is
 * the IAM principal or the JWT subject, as the configuration's `auth` says (lib/http/lambda.ts's lambdaPrincipal).
 */
export const handler = async (...args: Parameters<ApiHandler>): Promise<Awaited<ReturnType<ApiHandler>>> => {
  const [event, context] = args as unknown as [Request, LambdaContext | undefined];
  return observed("api", context, async (invocation) => {
    invocation.identify({ route: event.routeKey, runId: event.pathParameters?.id });
    if (serve === undefined) {
      const deps = await awsDeps();
      serve = apiHandler(new Runlog({ ...deps.control(), observer: requestObserver }), {
        principal: lambdaPrincipal(deps.principalPolicy),
      });
    }
    current = invocation.observer;
    try {
      return await serve(...args);
    } finally {
      current = undefined;
    }
  });
};
