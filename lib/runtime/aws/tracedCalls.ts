import { callParent, type Failure, openSubsegment, outgoingHeader } from "./xray.ts";

/** What the SDK tells of a call, on its output or its error. */
interface CallMetadata {
  httpStatusCode?: number;
  requestId?: string;
  attempts?: number;
}

type Handler = (args: {
  input: object;
  request?: unknown;
}) => Promise<{ output: { $metadata?: CallMetadata } }>;

/** The part of an AWS SDK v3 client this reads: its middleware stack and region. */
interface TraceableClient {
  middlewareStack: unknown;
  config: { region: unknown };
}

interface Stack {
  add(
    middleware: (next: Handler, context: { clientName?: string; commandName?: string }) => Handler,
    options: { step: "build"; name: string; override: boolean },
  ): void;
}

const THROTTLED = /Throttl|TooManyRequests|RequestLimitExceeded|ProvisionedThroughputExceeded/;

/** How a call ended badly, as X-Ray flags it: 429 or a throttling error, a 4xx, else (5xx, no answer) a fault. */
function failureOf(status: number | undefined, error: { name?: string }): Failure {
  if (status === 429 || THROTTLED.test(error.name ?? "")) return "throttle";
  return status !== undefined && status >= 400 && status < 500 ? "error" : "fault";
}

/**
 * Trace each call of `client` while the invocation is sampled: a subsegment named for the service
 * (`DynamoDB`, `SFN` …) under the open step's, with the operation, region, request id, retries and
 * HTTP status, and the trace header on the request naming it. Added once, in the build step, so a
 * call's retries are one subsegment; a call made while the invocation is not sampled, or outside
 * Lambda, passes through untouched.
 */
export function traceCalls<C extends TraceableClient>(client: C): C {
  const region = client.config.region as string | (() => Promise<string>) | undefined;
  const stack = client.middlewareStack as Stack;
  stack.add(
    (next, context) => async (args) => {
      const parent = callParent();
      if (!parent) return next(args);
      const service = (context.clientName ?? "AWS").replace(/Client$/, "");
      const subsegment = openSubsegment(service, parent, "aws");
      // Not sampled: the SDK's own recursion-detection middleware passes the invocation's header on.
      if (!subsegment) return next(args);
      const request = args.request as { headers?: Record<string, string> } | undefined;
      if (request?.headers) request.headers["X-Amzn-Trace-Id"] = outgoingHeader(subsegment);
      const record = async (metadata: CallMetadata | undefined) => {
        const input = args.input as { TableName?: unknown; QueueUrl?: unknown };
        subsegment.describe({
          aws: {
            operation: (context.commandName ?? "").replace(/Command$/, ""),
            region: typeof region === "function" ? await region() : (region ?? ""),
            ...(metadata?.requestId ? { request_id: metadata.requestId } : {}),
            ...(metadata?.attempts ? { retries: metadata.attempts - 1 } : {}),
            ...(typeof input.TableName === "string" ? { table_name: input.TableName } : {}),
            ...(typeof input.QueueUrl === "string" ? { queue_url: input.QueueUrl } : {}),
          },
          ...(metadata?.httpStatusCode ? { http: { response: { status: metadata.httpStatusCode } } } : {}),
        });
      };
      try {
        const result = await next(args);
        await record(result.output.$metadata);
        return result;
      } catch (error) {
        const failed = error as { name?: string; message?: string; $metadata?: CallMetadata };
        await record(failed.$metadata);
        subsegment.fail(failureOf(failed.$metadata?.httpStatusCode, failed), {
          name: failed.name ?? "Error",
          message: failed.message ?? String(error),
        });
        throw error;
      } finally {
        subsegment.close();
      }
    },
    { step: "build", name: "runlogXRay", override: true },
  );
  return client;
}
