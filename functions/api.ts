import { Runlog } from "../lib/api/runlog.ts";
import { apiHandler } from "../lib/http/public.ts";
import { awsDeps } from "./deps.ts";

type ApiHandler = ReturnType<typeof apiHandler>;
let serve: ApiHandler | undefined;

/** The HTTP API behind API Gateway: lib/http's app over the library API, built once per instance. */
export const handler = async (...args: Parameters<ApiHandler>): Promise<Awaited<ReturnType<ApiHandler>>> => {
  serve ??= apiHandler(new Runlog((await awsDeps()).control()));
  return serve(...args);
};
