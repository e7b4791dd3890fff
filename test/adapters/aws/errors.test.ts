import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import {
  ConditionalCheckFailedException,
  ResourceNotFoundException as DynamoResourceNotFound,
  ThrottlingException as DynamoThrottling,
  InternalServerError,
  ProvisionedThroughputExceededException,
  TransactionConflictException,
} from "@aws-sdk/client-dynamodb";
import {
  DecryptionFailure,
  GetSecretValueCommand,
  InternalServiceError,
  InvalidRequestException,
  ResourceNotFoundException as SecretNotFound,
  SecretsManagerClient,
  SecretsManagerServiceException,
} from "@aws-sdk/client-secrets-manager";
import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  ExecutionLimitExceeded,
  InvalidArn,
  SFNServiceException,
  StateMachineDoesNotExist,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { type AwsErrorKind, awsErrorKind } from "../../../lib/adapters/aws/errors.ts";
import { toRunlogError as dynamoError } from "../../../lib/adapters/dynamodb/errors.ts";
import { toRunlogError as sfnError } from "../../../lib/adapters/stepfunctions/errors.ts";
import {
  ConflictError,
  NotFoundError,
  PermanentError,
  RetryableError,
  type RunlogError,
} from "../../../lib/core/errors.ts";
import { ModelKey } from "../../../lib/runtime/aws/modelKey.ts";

const $metadata = {};
/** What Node's socket layer throws, as the SDK's HTTP handler passes it on. */
const socket = (code: string, message: string) => Object.assign(new Error(message), { code, $metadata });
/** Node's connect to every address of a name failing (autoSelectFamily): one AggregateError of the attempts. */
const allAddressesRefused = () =>
  Object.assign(
    new AggregateError(
      [
        socket("ECONNREFUSED", "connect ECONNREFUSED ::1:443"),
        socket("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:443"),
      ],
      "",
    ),
    { code: "ECONNREFUSED", $metadata },
  );
const timedOut = () =>
  Object.assign(new Error("Connection timed out after 1000 ms"), { name: "TimeoutError", $metadata });
/** An answer the SDK could not match to a modelled error: only its status says what it was. */
const unmodelled = (httpStatusCode: number) =>
  Object.assign(new Error("UnknownError"), {
    name: "Unknown",
    $fault: "client",
    $metadata: { httpStatusCode },
  });

/** Failures that are the same whatever the service: network, throttling, server faults. */
const SHARED: [string, () => unknown, AwsErrorKind][] = [
  ["a reset connection", () => socket("ECONNRESET", "read ECONNRESET"), "network"],
  ["socket hang up", () => Object.assign(new Error("socket hang up"), { $metadata }), "network"],
  ["a refused connection", () => socket("ECONNREFUSED", "connect ECONNREFUSED 10.0.0.1:443"), "network"],
  ["every address refused (AggregateError)", allAddressesRefused, "network"],
  ["a DNS failure", () => socket("EAI_AGAIN", "getaddrinfo EAI_AGAIN dynamodb"), "network"],
  ["no route", () => socket("EHOSTUNREACH", "connect EHOSTUNREACH"), "network"],
  ["a socket timeout", timedOut, "network"],
  [
    "a reset wrapped as a cause",
    () => new Error("request failed", { cause: socket("ECONNRESET", "x") }),
    "network",
  ],
  ["a connect aborted", () => socket("ECONNABORTED", "connect ECONNABORTED"), "network"],
  [
    "an HTTP/2 stream the peer refused",
    () => socket("ERR_HTTP2_STREAM_ERROR", "Stream closed with error code NGHTTP2_REFUSED_STREAM"),
    "network",
  ],
  // What the SDK's retry strategy counts as transient beyond the socket: runlog does the same.
  [
    "a signature that expired on the way",
    () =>
      Object.assign(new Error("Signature expired: 20261207T000000Z is now earlier than 20261207T000500Z"), {
        name: "InvalidSignatureException",
        $fault: "client",
        $metadata,
      }),
    "network",
  ],
  [
    "a request the SDK resent after correcting the clock skew",
    () =>
      Object.assign(new Error("Signature not yet current"), {
        name: "InvalidSignatureException",
        $fault: "client",
        $metadata: { clockSkewCorrected: true },
      }),
    "network",
  ],
  ["a 429", () => unmodelled(429), "throttling"],
  [
    "a throttling name of another service (EC2's)",
    () =>
      Object.assign(new Error("slow down"), { name: "EC2ThrottledException", $fault: "client", $metadata }),
    "throttling",
  ],
  ["a 503 nobody named", () => unmodelled(503), "server"],
  ["a 501 nobody named (the SDK tries any 5xx again)", () => unmodelled(501), "server"],
  [
    "$retryable without a name",
    () => Object.assign(new Error("x"), { name: "Odd", $retryable: {} }),
    "server",
  ],
];

describe("the shared AWS error classifier", () => {
  const rows: [string, () => unknown, AwsErrorKind][] = [
    ...SHARED,
    [
      "DynamoDB throughput",
      () => new ProvisionedThroughputExceededException({ message: "slow", $metadata }),
      "throttling",
    ],
    ["DynamoDB throttling", () => new DynamoThrottling({ message: "slow", $metadata }), "throttling"],
    ["DynamoDB 500", () => new InternalServerError({ message: "oops", $metadata }), "server"],
    [
      "a failed condition",
      () => new ConditionalCheckFailedException({ message: "no", $metadata }),
      "conditional",
    ],
    ["a missing table", () => new DynamoResourceNotFound({ message: "no", $metadata }), "not_found"],
    [
      "Step Functions throttling",
      () => new SFNServiceException({ name: "ThrottlingException", $fault: "client", $metadata }),
      "throttling",
    ],
    ["Step Functions bad ARN", () => new InvalidArn({ message: "bad", $metadata }), "rejected"],
    ["Secrets Manager 500", () => new InternalServiceError({ message: "oops", $metadata }), "server"],
    [
      "Secrets Manager throttling",
      () => new SecretsManagerServiceException({ name: "ThrottlingException", $fault: "client", $metadata }),
      "throttling",
    ],
    ["a secret KMS cannot decrypt", () => new DecryptionFailure({ message: "kms", $metadata }), "rejected"],
    [
      "our own abort",
      () => Object.assign(new Error("aborted"), { name: "AbortError", code: "ABORT_ERR" }),
      "rejected",
    ],
    [
      "a signature refused for another reason",
      () =>
        Object.assign(new Error("The request signature we calculated does not match"), {
          name: "InvalidSignatureException",
          $fault: "client",
          $metadata,
        }),
      "rejected",
    ],
    [
      "access denied",
      () =>
        Object.assign(new Error("denied"), { name: "AccessDeniedException", $fault: "client", $metadata }),
      "rejected",
    ],
  ];
  it.each(rows.map(([label, make, kind]) => [label, kind, make] as const))("%s is %s", (_, kind, make) => {
    expect(awsErrorKind(make())).toBe(kind);
  });
});

const secrets = mockClient(SecretsManagerClient);
beforeEach(() => secrets.reset());
afterAll(() => secrets.restore());

/** The model key in secret `secretId`, read as a function reads it (Powertools Parameters, no cache yet). */
const readModelKey = (secretId: string) =>
  new ModelKey(
    new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({ region: "us-east-1" }) }),
    secretId,
  ).refresh();

/** What reading the model key throws when Secrets Manager fails with `error`. */
async function secretError(error: unknown): Promise<unknown> {
  secrets.on(GetSecretValueCommand).rejects(error as Error);
  return readModelKey("runlog/key").catch((e: unknown) => e);
}

describe("every service's translation agrees on the shared failures", () => {
  const retryable = SHARED.filter(([, , kind]) => kind !== "rejected");
  it.each(retryable)("%s is retryable from DynamoDB, Step Functions and Secrets Manager", async (_, make) => {
    const cause = make();
    const thrown: [string, unknown][] = [
      ["DynamoDB", dynamoError(cause, "read run r1")],
      ["Step Functions", sfnError(cause, "start execution r1-g1")],
      ["Secrets Manager", await secretError(cause)],
    ];
    for (const [service, error] of thrown) {
      expect(error, service).toBeInstanceOf(RetryableError);
      expect((error as Error).cause, service).toBe(cause);
    }
  });
});

describe("each service keeps its own names on top", () => {
  it.each<[string, () => RunlogError | Promise<unknown>, new (...args: never[]) => RunlogError]>([
    [
      "DynamoDB: a failed condition is a conflict",
      () => dynamoError(new ConditionalCheckFailedException({ message: "no", $metadata }), "append"),
      ConflictError,
    ],
    [
      "DynamoDB: a transaction conflict is retryable",
      () => dynamoError(new TransactionConflictException({ message: "busy", $metadata }), "append"),
      RetryableError,
    ],
    [
      "Step Functions: a name in use is a conflict",
      () => sfnError(new ExecutionAlreadyExists({ message: "x", $metadata }), "start"),
      ConflictError,
    ],
    [
      "Step Functions: too many executions is retryable",
      () => sfnError(new ExecutionLimitExceeded({ message: "x", $metadata }), "start"),
      RetryableError,
    ],
    [
      "Step Functions: a missing execution is not found",
      () => sfnError(new ExecutionDoesNotExist({ message: "x", $metadata }), "describe"),
      NotFoundError,
    ],
    [
      "Step Functions: a missing state machine is not found",
      () => sfnError(new StateMachineDoesNotExist({ message: "x", $metadata }), "start"),
      NotFoundError,
    ],
    [
      "Secrets Manager: a bad request is permanent",
      () => secretError(new InvalidRequestException({ message: "x", $metadata })),
      PermanentError,
    ],
  ])("%s", async (_, translate, category) => {
    expect(await translate()).toBeInstanceOf(category);
  });

  it("a missing table or secret is the deployment's mistake, not a missing run (no 404)", async () => {
    const table = dynamoError(
      new DynamoResourceNotFound({ message: "no", $metadata }),
      "read run r1",
      "runs",
    );
    expect(table).toBeInstanceOf(PermanentError);
    expect(table).not.toBeInstanceOf(NotFoundError);
    expect(table.message).toContain("table runs does not exist");
    const secret = await secretError(new SecretNotFound({ message: "no", $metadata }));
    expect(secret).toBeInstanceOf(PermanentError);
    expect(secret).not.toBeInstanceOf(NotFoundError);
    expect((secret as Error).message).toContain("secret runlog/key");
  });
});

describe("the model key secret", () => {
  it("that is broken JSON is refused clearly instead of being sent to the provider as a key", async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '{"apiKey": "sk-' });
    const error = await readModelKey("runlog/key").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermanentError);
    expect((error as Error).message).toMatch(/secret runlog\/key starts with "\{" but is not valid JSON/);
  });
});
