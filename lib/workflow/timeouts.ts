/**
 * Every time limit of a deployment, in one place, so they nest: a model call ends before its step
 * must, a step before its Lambda function, a function no later than its Task state, an execution
 * before its lease. cdk/ deploys these numbers, functions/ configures its clients from them and
 * lib/steps and the local runtime keep to them; test/cdk/timeouts.test.ts reads them back from
 * the synthesized template.
 */

/**
 * Seconds each Task's Lambda function may run (its timeout). Its Task state waits
 * TASK_STATE_MARGIN_SECONDS longer (taskStateTimeoutSeconds), so a function that runs to its
 * limit is reported as its own ending (`Sandbox.Timedout`), not as the Task's `States.Timeout`.
 */
export const TASK_TIMEOUT_SECONDS = {
  // Lambda's own maximum: a model call or a tool may take minutes.
  CallModel: 900,
  RunTool: 900,
  RecordModelFailure: 60,
  Finish: 60,
  Handoff: 60,
} as const;

/** How much longer a Task state waits than its function may run: cold start, invoke and reply. */
export const TASK_STATE_MARGIN_SECONDS = 60;

/**
 * A Task state's TimeoutSeconds: its function's timeout (the one table's, or the one a deployment
 * sized it with) and the margin.
 */
export function taskStateTimeoutSeconds(
  task: keyof typeof TASK_TIMEOUT_SECONDS,
  functionSeconds: number = TASK_TIMEOUT_SECONDS[task],
): number {
  return functionSeconds + TASK_STATE_MARGIN_SECONDS;
}

/** Lambda's longest function timeout. */
export const LAMBDA_MAX_TIMEOUT_SECONDS = 900;

/**
 * Seconds each function outside the state machine may take. Each does a few store calls per
 * run it handles (startRun, steerRun and resume one run, the sweeper up to 500), never a model or tool call.
 */
export const CONTROL_TIMEOUT_SECONDS = {
  startRun: 30,
  // One send, decision or cancel: a few store calls and one StartExecution or StopExecution.
  steerRun: 30,
  resume: 60,
  sweeper: 300,
  // API Gateway waits at most 30 s for an integration: the function must answer before that.
  api: 29,
  // Two calls per dead letter, up to a thousand of them (functions/redriveDeadLetters.ts).
  redriveDeadLetters: 300,
} as const;

/** The longest one execution (one generation of a run) may take, unless the stack says otherwise: 24 h. */
export const EXECUTION_TIMEOUT_SECONDS = 86_400;

/** A lease is claimed just before its execution starts, so it outlasts the execution's timeout by this. */
export const LEASE_MARGIN_SECONDS = 300;

/** How long a lease holds when executions may take `executionTimeoutSeconds`: what cdk/ gives the functions as their lease time. */
export function leaseMsFor(executionTimeoutSeconds: number): number {
  return (executionTimeoutSeconds + LEASE_MARGIN_SECONDS) * 1_000;
}

/** Kept back from a task's timeout so a step that gives up still has time to report why. */
export const REPORT_MARGIN_MS = 15_000;

/**
 * The longest a step keeps trying to store work it has done once the store fails, however much
 * of its task's time is left (a person may be waiting on a local run). A model call stops this
 * long before its step's deadline, so its response can still be stored.
 */
export const STORE_RETRY_MS = 60_000;

/**
 * The OpenAI client of the CallModel function (lib/runtime/aws/modelClient.ts): `attempts` requests
 * (the SDK's own retries included), each allowed `perAttemptMs` for the response to start and
 * then between two of its chunks, with at most `retryWaitMs` of the SDK's own backoff between two.
 * A Retry-After header can ask for a longer wait: the step's deadline bounds that, not the SDK.
 */
export const MODEL_CLIENT = { attempts: 3, perAttemptMs: 240_000, retryWaitMs: 8_000 } as const;

/** What a CallModel step keeps for itself after its model call: storing the response, then reporting. */
export const MODEL_CALL_MARGIN_MS = STORE_RETRY_MS + REPORT_MARGIN_MS;

/**
 * One request to DynamoDB, Step Functions or Secrets Manager from a function: connecting, and the
 * whole request. A store read of a big event's chunks is one request of at most 1 MB; anything
 * longer is a connection gone bad, retried by the SDK (`attempts`, its own retries included),
 * well inside any step's time. From outside AWS (the CLI or a local runtime reaching a deployment
 * over someone's own network, or a DynamoDB-compatible server on this machine) the same request
 * may cross a slower link, so it gets `outsideAwsRequestMs` (lib/adapters/aws/clientConfig.ts).
 */
export const AWS_REQUEST = {
  attempts: 3,
  connectMs: 3_000,
  requestMs: 10_000,
  outsideAwsRequestMs: 15_000,
} as const;
