/**
 * The most bytes any answer of the events routes holds (its JSON, UTF-8). Far below what a
 * deployed API can return (see LAMBDA_RESPONSE_MAX_BYTES), so escaping in the Lambda response
 * envelope never matters, and small enough that a client reads a page in well under a second.
 */
export const RESPONSE_MAX_BYTES = 1024 * 1024;

/**
 * Bytes of an event's JSON per part of GET /runs/{id}/events/{seq}?part=N: as base64 (4 characters
 * per 3 bytes) 1,024,000 characters, which leaves room under RESPONSE_MAX_BYTES for the rest.
 */
export const PART_BYTES = 768_000;

/**
 * What Lambda returns from a synchronous invocation, as the serialized response object: "For
 * synchronous invocations, the maximum payload size is 6 MB"
 * (https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html). API Gateway's own HTTP API
 * payload limit is 10 MB, not adjustable
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html), so for an
 * API served by one Lambda, Lambda's 6 MB is the limit that binds. A larger answer fails the
 * invocation, and API Gateway answers a bare 502.
 */
export const LAMBDA_RESPONSE_MAX_BYTES = 6 * 1024 * 1024;
