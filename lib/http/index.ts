export { headView, outcomeView, resumePointView } from "../api/views.ts";
export { type AppOptions, createApp } from "./app.ts";
export { type ErrorBody, errorAnswer, HttpError } from "./errors.ts";
export { idempotentRunId } from "./idempotency.ts";
export { apiHandler, lambdaCaller } from "./lambda.ts";
export { loopbackOnly } from "./loopback.ts";
export { MAX_BODY_BYTES, MAX_TEXT_BYTES } from "./schemas.ts";
