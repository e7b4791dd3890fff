import { AWS_REQUEST } from "../../workflow/timeouts.ts";

/** The settings every runlog AWS client (DynamoDB, Step Functions, Secrets Manager, SQS, Lambda) is built with. */
export interface AwsClientConfig {
  maxAttempts: number;
  requestHandler: { connectionTimeout: number; requestTimeout: number; throwOnRequestTimeout: true };
}

/**
 * Few SDK retries (steps and Step Functions retry on top) and timeouts, so an endpoint that hangs
 * fails in seconds as retryable instead of holding a step or a command for minutes.
 * `requestMs` defaults to a request from inside AWS (a function); see AWS_REQUEST for the others.
 */
export function awsClientConfig(requestMs: number = AWS_REQUEST.requestMs): AwsClientConfig {
  return {
    maxAttempts: AWS_REQUEST.attempts,
    requestHandler: {
      connectionTimeout: AWS_REQUEST.connectMs,
      requestTimeout: requestMs,
      // Without this, @smithy/node-http-handler only logs a warning once requestTimeout passes,
      // and the request waits on for the SDK's socket timeout (5 to 15 minutes).
      throwOnRequestTimeout: true,
    },
  };
}
