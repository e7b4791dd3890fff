import { Duration, Token } from "aws-cdk-lib";
import { Architecture } from "aws-cdk-lib/aws-lambda";
import { NAMES } from "../lib/runtime/config.ts";
import {
  CONTROL_TIMEOUT_SECONDS,
  LAMBDA_MAX_TIMEOUT_SECONDS,
  LEASE_MARGIN_SECONDS,
  MODEL_CALL_MARGIN_MS,
  REPORT_MARGIN_MS,
  TASK_TIMEOUT_SECONDS,
} from "../lib/workflow/timeouts.ts";
import { RunlogPropsError } from "./propsError.ts";
import { describeValue } from "./propsShape.ts";
import type { HandlerName } from "./runlogFunction.ts";

/** How one of runlog's functions is sized: each field replaces runlog's own choice for that function. */
export interface RunlogFunctionSizing {
  /** Memory in MB, 128 to 10,240. @default 512 for callModel, runTool, sweeper and api; 256 for the others */
  memorySize?: number;
  /**
   * The function's timeout, whole seconds. A Task state (callModel, runTool, recordModelFailure,
   * finish, handoff) waits a minute longer; callModel takes at least 2 minutes (a model call ends
   * 75 s before it), the functions that start executions at most 5 (a lease's margin), the api at
   * most 29 s (API Gateway waits 30). @default lib/workflow/timeouts.ts: 900 s for callModel and runTool
   */
  timeout?: Duration;
  /** The instruction set. @default Architecture.ARM_64 */
  architecture?: Architecture;
  /** Reserved concurrency of this function, over `concurrency.reservedConcurrency` and `apiReservedConcurrency`. @default those props' */
  reservedConcurrency?: number;
  /** Variables added to the function's environment, at most 4 KB: the model provider's (`OPENAI_BASE_URL`, `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID`) and the team's own; runlog's own (`RUNLOG_*`, the table's, the state machine's …, `OPENAI_API_KEY`: use `modelKeySecret`) and Lambda's reserved (`AWS_*` …) are refused, each saying why. @default none */
  environment?: Record<string, string>;
}

/** The sizing of each of runlog's functions, by handler. */
export type RunlogFunctionsSizing = Partial<Record<HandlerName, RunlogFunctionSizing>>;

/** runlog's own sizes (lib/workflow/timeouts.ts), checked there to nest. */
export const DEFAULT_SIZING: Record<HandlerName, { timeout: Duration; memorySize: number }> = {
  callModel: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.CallModel), memorySize: 512 },
  runTool: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.RunTool), memorySize: 512 },
  recordModelFailure: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.RecordModelFailure), memorySize: 256 },
  finish: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.Finish), memorySize: 256 },
  handoff: { timeout: Duration.seconds(TASK_TIMEOUT_SECONDS.Handoff), memorySize: 256 },
  startRun: { timeout: Duration.seconds(CONTROL_TIMEOUT_SECONDS.startRun), memorySize: 256 },
  steerRun: { timeout: Duration.seconds(CONTROL_TIMEOUT_SECONDS.steerRun), memorySize: 256 },
  resume: { timeout: Duration.seconds(CONTROL_TIMEOUT_SECONDS.resume), memorySize: 256 },
  sweeper: { timeout: Duration.seconds(CONTROL_TIMEOUT_SECONDS.sweeper), memorySize: 512 },
  // Runs execute in Step Functions, not here.
  api: { timeout: Duration.seconds(CONTROL_TIMEOUT_SECONDS.api), memorySize: 512 },
  redriveDeadLetters: {
    timeout: Duration.seconds(CONTROL_TIMEOUT_SECONDS.redriveDeadLetters),
    memorySize: 256,
  },
  // A batch of stream records: a read per run and a few PutEvents.
  publishLifecycle: { timeout: Duration.seconds(60), memorySize: 256 },
};

const HANDLER_NAMES = Object.keys(DEFAULT_SIZING) as HandlerName[];
const FIELDS = ["memorySize", "timeout", "architecture", "reservedConcurrency", "environment"];
/** The least and most seconds each function's timeout may be, and why. */
const TIMEOUT_BOUNDS: Partial<Record<HandlerName, { min?: number; max?: number; why: string }>> = {
  callModel: {
    min: Math.ceil((MODEL_CALL_MARGIN_MS + 45_000) / 1_000),
    why: "a model call ends 75 s before the function's timeout, to store what it streamed",
  },
  runTool: {
    min: Math.ceil((REPORT_MARGIN_MS + 15_000) / 1_000),
    why: "a tool call ends 15 s before the function's timeout, to report its result",
  },
  // A lease is claimed just before an execution starts: the margin covers the function that claimed it.
  startRun: { max: LEASE_MARGIN_SECONDS, why: "a lease outlasts its execution by 5 minutes only" },
  resume: { max: LEASE_MARGIN_SECONDS, why: "a lease outlasts its execution by 5 minutes only" },
  steerRun: { max: LEASE_MARGIN_SECONDS, why: "a lease outlasts its execution by 5 minutes only" },
  sweeper: { max: LEASE_MARGIN_SECONDS, why: "a lease outlasts its execution by 5 minutes only" },
  handoff: { max: LEASE_MARGIN_SECONDS, why: "a lease outlasts its execution by 5 minutes only" },
  api: { max: 29, why: "API Gateway waits at most 30 s for the function" },
};
/**
 * The variables of the configuration schema that are the team's to set on a function: the model
 * provider's (another OpenAI-compatible endpoint, the organization and project requests are sent
 * for), which the construct never sets. Every other name of the schema is runlog's own.
 */
export const USER_VARIABLES: ReadonlySet<string> = new Set([
  NAMES.openaiBaseUrl,
  NAMES.openaiOrgId,
  NAMES.openaiProjectId,
]);
const OWN_VARIABLES = new Set<string>(Object.values(NAMES).filter((name) => !USER_VARIABLES.has(name)));
const LAMBDA_RESERVED = /^(AWS_|_|LAMBDA_)|^(NODE_OPTIONS|TZ|LANG|PATH|LD_LIBRARY_PATH|NODE_PATH)$/;
/** Lambda's limit on the size of one function's variables, names and values together. */
export const LAMBDA_ENVIRONMENT_BYTES = 4_096;

/** Why a team may not set a variable on one of runlog's functions, or undefined when it may. */
export function refusedVariable(key: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) {
    return "a variable's name is a letter, then letters, digits and _";
  }
  if (USER_VARIABLES.has(key)) return undefined;
  if (key === NAMES.openaiApiKey) {
    return "the model key is kept in a secret, not in a function's variables: give it as modelKeySecret";
  }
  if (LAMBDA_RESERVED.test(key)) {
    return "Lambda reserves it (AWS_*, _*, LAMBDA_*, NODE_OPTIONS, TZ, LANG, PATH …)";
  }
  if (key.startsWith("RUNLOG_") || OWN_VARIABLES.has(key)) {
    return "it is runlog's own (RUNLOG_*, TABLE_NAME, STATE_MACHINE_ARN, MODEL_KEY_SECRET_ARN …): the construct sets it from its props, or it is read by the CLI only";
  }
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function checkTimeout(handler: HandlerName, timeout: unknown): void {
  const prop = `functions.${handler}.timeout`;
  if (!(timeout instanceof Duration)) throw new RunlogPropsError(prop, "must be a Duration");
  const seconds = timeout.toSeconds({ integral: false });
  if (Token.isUnresolved(seconds)) throw new RunlogPropsError(prop, "must be written out, not a token");
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > LAMBDA_MAX_TIMEOUT_SECONDS) {
    throw new RunlogPropsError(
      prop,
      `must be whole seconds from 1 to ${LAMBDA_MAX_TIMEOUT_SECONDS} (Lambda's limit), got ${timeout.toHumanString()}`,
    );
  }
  const bounds = TIMEOUT_BOUNDS[handler];
  if (bounds?.min !== undefined && seconds < bounds.min) {
    throw new RunlogPropsError(
      prop,
      `must be at least ${bounds.min} seconds (${bounds.why}), got ${seconds}`,
    );
  }
  if (bounds?.max !== undefined && seconds > bounds.max) {
    throw new RunlogPropsError(prop, `must be at most ${bounds.max} seconds (${bounds.why}), got ${seconds}`);
  }
}

/** Check `functions`: each error names the function and the field (`functions.runTool.memorySize`). */
export function validateFunctionsSizing(functions: unknown, sweepEvery: Duration | undefined): void {
  if (functions === undefined) return;
  if (!isObject(functions)) {
    throw new RunlogPropsError(
      "functions",
      `must be an object keyed by function name, got ${describeValue(functions)}`,
    );
  }
  for (const [handler, sizing] of Object.entries(functions)) {
    if (!HANDLER_NAMES.includes(handler as HandlerName)) {
      throw new RunlogPropsError(
        `functions.${handler}`,
        `is not one of runlog's functions: ${HANDLER_NAMES.join(", ")}`,
      );
    }
    const name = handler as HandlerName;
    if (sizing === undefined) continue;
    if (!isObject(sizing)) {
      throw new RunlogPropsError(
        `functions.${name}`,
        `must be { ${FIELDS.join(", ")} }, got ${describeValue(sizing)}`,
      );
    }
    for (const field of Object.keys(sizing)) {
      if (!FIELDS.includes(field)) {
        throw new RunlogPropsError(
          `functions.${name}.${field}`,
          `is not a sizing field: ${FIELDS.join(", ")}`,
        );
      }
    }
    const { memorySize, timeout, architecture, reservedConcurrency, environment } = sizing;
    if (
      memorySize !== undefined &&
      !(
        typeof memorySize === "number" &&
        (Token.isUnresolved(memorySize) ||
          (Number.isInteger(memorySize) && memorySize >= 128 && memorySize <= 10_240))
      )
    ) {
      throw new RunlogPropsError(
        `functions.${name}.memorySize`,
        `must be a whole number of MB from 128 to 10240 (Lambda's limits), got ${String(memorySize)}`,
      );
    }
    if (timeout !== undefined) checkTimeout(name, timeout);
    if (name === "sweeper" && timeout instanceof Duration) {
      const every = (sweepEvery ?? Duration.minutes(5)).toSeconds();
      if (!Token.isUnresolved(every) && timeout.toSeconds() > every) {
        throw new RunlogPropsError(
          "functions.sweeper.timeout",
          `must be at most sweepEvery (${every} s): one sweep ends before the next starts; got ${timeout.toSeconds()}`,
        );
      }
    }
    if (architecture !== undefined && !(architecture instanceof Architecture)) {
      throw new RunlogPropsError(
        `functions.${name}.architecture`,
        "must be Architecture.ARM_64 or Architecture.X86_64 from aws-cdk-lib/aws-lambda",
      );
    }
    if (
      reservedConcurrency !== undefined &&
      !(
        typeof reservedConcurrency === "number" &&
        (Token.isUnresolved(reservedConcurrency) ||
          (Number.isInteger(reservedConcurrency) && reservedConcurrency >= 1))
      )
    ) {
      throw new RunlogPropsError(
        `functions.${name}.reservedConcurrency`,
        `must be a positive whole number (0 would stop the function), got ${String(reservedConcurrency)}`,
      );
    }
    if (environment !== undefined) {
      if (!isObject(environment)) {
        throw new RunlogPropsError(
          `functions.${name}.environment`,
          `must be an object of strings, got ${describeValue(environment)}`,
        );
      }
      let bytes = 0;
      for (const [key, value] of Object.entries(environment)) {
        const refused = refusedVariable(key);
        if (refused !== undefined) {
          throw new RunlogPropsError(
            `functions.${name}.environment`,
            `cannot set ${JSON.stringify(key)}: ${refused}`,
          );
        }
        if (typeof value !== "string") {
          throw new RunlogPropsError(
            `functions.${name}.environment`,
            `${key} must be a string, got ${describeValue(value)}`,
          );
        }
        if (!Token.isUnresolved(value)) bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
      }
      if (bytes > LAMBDA_ENVIRONMENT_BYTES) {
        throw new RunlogPropsError(
          `functions.${name}.environment`,
          `holds ${bytes} bytes of names and values: over Lambda's ${LAMBDA_ENVIRONMENT_BYTES} for all of a function's variables (runlog's own take some of them too)`,
        );
      }
    }
  }
}
