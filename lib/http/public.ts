/**
 * `runlog/http`: the HTTP API as a hono app, to mount in a server of your own
 * (`app.route("/runlog", createApp(runlog))`, or `app.fetch` in any Fetch-API server),
 * and the Lambda handler API Gateway calls.
 */
import "../requireNode.ts";

export { type AppOptions, createApp } from "./app.ts";
export { type ErrorBody, HttpError } from "./errors.ts";
export { apiHandler } from "./lambda.ts";
export { PART_BYTES, RESPONSE_MAX_BYTES } from "./limits.ts";
export { MAX_BODY_BYTES, MAX_TEXT_BYTES } from "./schemas.ts";
