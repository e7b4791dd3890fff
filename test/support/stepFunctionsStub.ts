import { AwsFault, jsonService, stopServer } from "./bundleRun/awsCalls.ts";

/** One call the fake received: the operation (X-Amz-Target's) and its JSON body. */
export interface SfnCall {
  operation: string;
  body: Record<string, unknown>;
}

interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: "RUNNING" | "ABORTED";
  startDate: number;
}

export interface StepFunctionsStub {
  /** Its URL, for AWS_ENDPOINT_URL_SFN. */
  endpoint: string;
  calls: SfnCall[];
  executions: Map<string, Execution>;
  stop(): Promise<void>;
}

/**
 * A tiny Step Functions control plane on loopback (no state machine runs: for that, see
 * bundleRun/fakeStepFunctions.ts), knowing one state machine: DescribeStateMachine,
 * StartExecution, DescribeExecution and StopExecution, with executions that stay RUNNING until
 * stopped. A child `runlog serve` reaches it through AWS_ENDPOINT_URL_SFN, where
 * aws-sdk-client-mock cannot reach.
 */
export async function startStepFunctionsStub(
  stateMachineArn: string,
  timeoutSeconds = 3_600,
): Promise<StepFunctionsStub> {
  const calls: SfnCall[] = [];
  const executions = new Map<string, Execution>();
  const machine = (body: Record<string, unknown>) => {
    if (body.stateMachineArn !== stateMachineArn)
      throw new AwsFault(
        "StateMachineDoesNotExist",
        `State Machine Does Not Exist: '${String(body.stateMachineArn)}'`,
      );
  };
  const execution = (body: Record<string, unknown>): Execution => {
    const arn = String(body.executionArn);
    const found = executions.get(arn);
    if (!found) throw new AwsFault("ExecutionDoesNotExist", `Execution Does Not Exist: '${arn}'`);
    return found;
  };
  const operations = {
    DescribeStateMachine(body: Record<string, unknown>) {
      machine(body);
      return {
        stateMachineArn,
        name: stateMachineArn.split(":").at(-1),
        definition: JSON.stringify({ StartAt: "Start", TimeoutSeconds: timeoutSeconds, States: {} }),
        roleArn: "arn:aws:iam::123456789012:role/runlog",
        type: "STANDARD",
        creationDate: 0,
      };
    },
    StartExecution(body: Record<string, unknown>) {
      machine(body);
      const name = String(body.name);
      const executionArn = `${stateMachineArn.replace(":stateMachine:", ":execution:")}:${name}`;
      if (executions.has(executionArn))
        throw new AwsFault("ExecutionAlreadyExists", `Execution Already Exists: '${executionArn}'`);
      const started: Execution = {
        executionArn,
        stateMachineArn,
        name,
        input: String(body.input),
        status: "RUNNING",
        startDate: Date.now() / 1_000,
      };
      executions.set(executionArn, started);
      return { executionArn, startDate: started.startDate };
    },
    DescribeExecution: execution,
    StopExecution(body: Record<string, unknown>) {
      execution(body).status = "ABORTED";
      return { stopDate: Date.now() / 1_000 };
    },
  };
  const recorded = Object.fromEntries(
    Object.entries(operations).map(([operation, answer]) => [
      operation,
      (body: Record<string, unknown>) => {
        calls.push({ operation, body });
        return answer(body);
      },
    ]),
  );
  const { endpoint, server } = await jsonService("AWSStepFunctions", recorded);
  return { endpoint, calls, executions, stop: () => stopServer(server) };
}
