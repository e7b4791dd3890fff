import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import type { LambdaClient } from "@aws-sdk/client-lambda";
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { SFNClient } from "@aws-sdk/client-sfn";
import type { SQSClient } from "@aws-sdk/client-sqs";
import { traceCalls } from "./tracedCalls.ts";

/** An AWS client a function makes (buildDeps, publisherDeps). */
export type AwsClient =
  | DynamoDBClient
  | SFNClient
  | SecretsManagerClient
  | SQSClient
  | LambdaClient
  | EventBridgeClient;

const clientObservers = new Set<(client: AwsClient) => void>();

/**
 * Show `observer` every AWS client a function makes (buildDeps, publisherDeps) from now on, before its first call; returns how
 * to stop. Tests record the functions' AWS calls this way to check them against their IAM roles
 * (test/support/iam); nothing in a deployed function observes.
 */
export function observeClients(observer: (client: AwsClient) => void): () => void {
  clientObservers.add(observer);
  return () => clientObservers.delete(observer);
}

/** A client as the functions use it: its calls traced by X-Ray where tracing is on, and shown to any observer. */
export function made<C extends AwsClient>(client: C): C {
  const traced = traceCalls(client);
  for (const observer of clientObservers) observer(traced);
  return traced;
}
