import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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

const error = (type: string, message: string) => ({ status: 400, body: { __type: type, message } });

/**
 * A tiny Step Functions control plane on loopback (no state machine runs: for that, see
 * bundleRun/fakeStepFunctions.ts) (AWS JSON 1.0, the protocol the SDK speaks), knowing one
 * state machine: DescribeStateMachine, StartExecution, DescribeExecution and StopExecution, with
 * executions that stay RUNNING until stopped. A child `runlog serve` reaches it through
 * AWS_ENDPOINT_URL_SFN, where aws-sdk-client-mock cannot reach.
 */
export async function startStepFunctionsStub(
  stateMachineArn: string,
  timeoutSeconds = 3_600,
): Promise<StepFunctionsStub> {
  const calls: SfnCall[] = [];
  const executions = new Map<string, Execution>();
  const answer = (operation: string, body: Record<string, unknown>): { status: number; body: unknown } => {
    const arn = String(body.executionArn ?? "");
    switch (operation) {
      case "DescribeStateMachine":
        if (body.stateMachineArn !== stateMachineArn)
          return error(
            "StateMachineDoesNotExist",
            `State Machine Does Not Exist: '${String(body.stateMachineArn)}'`,
          );
        return {
          status: 200,
          body: {
            stateMachineArn,
            name: stateMachineArn.split(":").at(-1),
            definition: JSON.stringify({ StartAt: "Start", TimeoutSeconds: timeoutSeconds, States: {} }),
            roleArn: "arn:aws:iam::123456789012:role/runlog",
            type: "STANDARD",
            creationDate: 0,
          },
        };
      case "StartExecution": {
        if (body.stateMachineArn !== stateMachineArn)
          return error("StateMachineDoesNotExist", "State Machine Does Not Exist");
        const name = String(body.name);
        const executionArn = `${stateMachineArn.replace(":stateMachine:", ":execution:")}:${name}`;
        if (executions.has(executionArn))
          return error("ExecutionAlreadyExists", `Execution Already Exists: '${executionArn}'`);
        const execution: Execution = {
          executionArn,
          stateMachineArn,
          name,
          input: String(body.input),
          status: "RUNNING",
          startDate: Date.now() / 1_000,
        };
        executions.set(executionArn, execution);
        return { status: 200, body: { executionArn, startDate: execution.startDate } };
      }
      case "DescribeExecution": {
        const execution = executions.get(arn);
        return execution
          ? { status: 200, body: execution }
          : error("ExecutionDoesNotExist", `Execution Does Not Exist: '${arn}'`);
      }
      case "StopExecution": {
        const execution = executions.get(arn);
        if (!execution) return error("ExecutionDoesNotExist", `Execution Does Not Exist: '${arn}'`);
        execution.status = "ABORTED";
        return { status: 200, body: { stopDate: Date.now() / 1_000 } };
      }
      default:
        return error("UnknownOperationException", `the fake does not do ${operation}`);
    }
  };
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      const operation = String(request.headers["x-amz-target"] ?? "").replace(/^AWSStepFunctions\./, "");
      const body = (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
      calls.push({ operation, body });
      const result = answer(operation, body);
      response.writeHead(result.status, { "content-type": "application/x-amz-json-1.0" });
      response.end(JSON.stringify(result.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    executions,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
