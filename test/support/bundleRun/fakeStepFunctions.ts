import { isDeepStrictEqual } from "node:util";
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  StateMachine,
} from "aws-local-stepfunctions";
import { type AwsCallLog, AwsFault, jsonService } from "./awsCalls.ts";
import { ACCOUNT, REGION, taskResources } from "./template.ts";

export type ExecutionStatus = "RUNNING" | "SUCCEEDED" | "FAILED" | "TIMED_OUT" | "ABORTED";

/** One execution, as DescribeExecution answers it. */
export interface Execution {
  executionArn: string;
  name: string;
  input: string;
  status: ExecutionStatus;
  startDate: number;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
  /** Settles when the execution ends (never rejects). */
  ended: Promise<void>;
  /** StopExecution: ABORTED now; the Lambda invocations under way run on, as on AWS. */
  stop(error?: string, cause?: string): void;
}

export interface FakeStepFunctionsOptions {
  stateMachineArn: string;
  /** The deployed definition (substitutions filled). */
  definition: Record<string, unknown>;
  /** Invoke the Lambda function a Task's Resource names; rejects with an error named as Lambda's errorType. */
  invoke: (arn: string, input: unknown) => Promise<unknown>;
  /** What Step Functions puts on the default bus when an execution's status changes. */
  publish: (event: Record<string, unknown>) => void;
  log: AwsCallLog;
}

/**
 * Step Functions for one Standard state machine (the JSON 1.0 protocol:
 * StartExecution, DescribeExecution, StopExecution), each execution run by
 * aws-local-stepfunctions over the deployed definition, each Task routed by its
 * Resource to the function with that ARN. Names are unique per state machine,
 * and a start repeated with the same name and input while it runs is the same
 * execution, as on AWS.
 */
export async function startFakeStepFunctions(options: FakeStepFunctionsOptions) {
  const { stateMachineArn, definition, log } = options;
  const executions = new Map<string, Execution>();
  const stateMachineName = stateMachineArn.split(":").at(-1)!;
  const compile = (deployed: Record<string, unknown>) => ({
    machine: new StateMachine(deployed as never, { validationOptions: { checkArn: false } }),
    routes: Object.fromEntries(
      Object.entries(taskResources(deployed)).map(([state, arn]) => [
        state,
        async (input: unknown) => {
          log.record({ fn: "stateMachine", action: "lambda:InvokeFunction", resource: arn });
          return (await options.invoke(arn, input)) as never;
        },
      ]),
    ),
  });
  // UpdateStateMachine: executions started after it run the new definition, those under way their own.
  let current = compile(definition);

  const statusChange = (execution: Execution) =>
    options.publish({
      version: "0",
      id: crypto.randomUUID(),
      "detail-type": "Step Functions Execution Status Change",
      source: "aws.states",
      account: ACCOUNT,
      time: new Date().toISOString(),
      region: REGION,
      resources: [execution.executionArn],
      detail: {
        executionArn: execution.executionArn,
        stateMachineArn,
        name: execution.name,
        status: execution.status,
        startDate: execution.startDate,
        stopDate: execution.stopDate ?? null,
        input: execution.input,
        output: execution.output ?? null,
        error: execution.error ?? null,
        cause: execution.cause ?? null,
      },
    });

  const run = (name: string, input: string): Execution => {
    const executionArn = `arn:aws:states:${REGION}:${ACCOUNT}:execution:${stateMachineName}:${name}`;
    const startDate = Date.now();
    const { machine, routes } = current;
    const running = machine.run(JSON.parse(input), {
      overrides: { taskResourceLocalHandlers: routes },
      context: {
        Execution: {
          Id: executionArn,
          Name: name,
          Input: JSON.parse(input),
          StartTime: new Date(startDate).toISOString(),
        },
        StateMachine: { Id: stateMachineArn, Name: stateMachineName },
      } as never,
    });
    const execution: Execution = {
      executionArn,
      name,
      input,
      status: "RUNNING",
      startDate,
      ended: Promise.resolve(),
      stop: (error, cause) => {
        end("ABORTED", {
          ...(error === undefined ? {} : { error }),
          ...(cause === undefined ? {} : { cause }),
        });
        running.abort();
      },
    };
    const end = (status: ExecutionStatus, facts: Partial<Execution>) => {
      if (execution.status !== "RUNNING") return;
      Object.assign(execution, { status, stopDate: Date.now(), ...facts });
      statusChange(execution);
    };
    execution.ended = running.result.then(
      (output) => end("SUCCEEDED", { output: JSON.stringify(output) }),
      (error: unknown) => {
        if (error instanceof ExecutionAbortedError) return end("ABORTED", {});
        if (error instanceof ExecutionTimeoutError) return end("TIMED_OUT", {});
        const cause = error instanceof ExecutionError ? (error.cause as Error) : (error as Error);
        end("FAILED", { error: cause.name, cause: cause.message });
      },
    );
    executions.set(executionArn, execution);
    statusChange(execution);
    return execution;
  };

  const find = (arn: unknown): Execution => {
    const execution = executions.get(String(arn));
    if (!execution) throw new AwsFault("ExecutionDoesNotExist", `Execution Does Not Exist: '${String(arn)}'`);
    return execution;
  };
  const seconds = (ms: number | undefined) => (ms === undefined ? undefined : ms / 1000);

  const service = await jsonService("AWSStepFunctions", {
    StartExecution: ({ stateMachineArn: arn, name, input }, fn) => {
      log.record({ fn, action: "states:StartExecution", resource: String(arn) });
      if (arn !== stateMachineArn) {
        throw new AwsFault("StateMachineDoesNotExist", `State Machine Does Not Exist: '${String(arn)}'`);
      }
      const executionName = typeof name === "string" ? name : crypto.randomUUID();
      if (!/^[A-Za-z0-9_-]{1,80}$/.test(executionName)) {
        throw new AwsFault("InvalidName", `Invalid Name: '${executionName}'`);
      }
      const text = typeof input === "string" ? input : "{}";
      const arnOfName = `arn:aws:states:${REGION}:${ACCOUNT}:execution:${stateMachineName}:${executionName}`;
      const existing = executions.get(arnOfName);
      if (existing) {
        // Idempotent only while it runs, with the same input; otherwise the name is taken.
        if (
          existing.status === "RUNNING" &&
          isDeepStrictEqual(JSON.parse(existing.input), JSON.parse(text))
        ) {
          return { executionArn: existing.executionArn, startDate: seconds(existing.startDate) };
        }
        throw new AwsFault("ExecutionAlreadyExists", `Execution Already Exists: '${arnOfName}'`);
      }
      const execution = run(executionName, text);
      return { executionArn: execution.executionArn, startDate: seconds(execution.startDate) };
    },
    DescribeExecution: ({ executionArn }, fn) => {
      log.record({ fn, action: "states:DescribeExecution", resource: String(executionArn) });
      const e = find(executionArn);
      return {
        executionArn: e.executionArn,
        stateMachineArn,
        name: e.name,
        status: e.status,
        startDate: seconds(e.startDate),
        stopDate: seconds(e.stopDate),
        input: e.input,
        output: e.output,
        error: e.error,
        cause: e.cause,
      };
    },
    StopExecution: ({ executionArn, error, cause }, fn) => {
      log.record({ fn, action: "states:StopExecution", resource: String(executionArn) });
      const e = find(executionArn);
      if (e.status === "RUNNING") e.stop(error as string | undefined, cause as string | undefined);
      return { stopDate: seconds(e.stopDate ?? Date.now()) };
    },
  });

  return {
    ...service,
    /** A deploy's new definition (UpdateStateMachine): only executions started from now on run it. */
    deploy(deployed: Record<string, unknown>): void {
      current = compile(deployed);
    },
    executions: () => [...executions.values()],
    /** The executions that have not ended yet. */
    running: () => [...executions.values()].filter((e) => e.status === "RUNNING"),
  };
}

export type FakeStepFunctions = Awaited<ReturnType<typeof startFakeStepFunctions>>;
