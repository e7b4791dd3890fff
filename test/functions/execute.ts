import { StateMachine } from "aws-local-stepfunctions";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { renderDefinition, TASKS, type TaskName } from "../../lib/workflow/definition.ts";
import { handlers } from "./handlers.ts";
import { STATE_MACHINE_ARN } from "./support.ts";

const TASK_HANDLERS: Record<TaskName, (event: unknown) => Promise<unknown>> = {
  CallModel: handlers.callModel,
  RunTool: handlers.runTool,
  RecordModelFailure: handlers.recordModelFailure,
  Finish: handlers.finish,
  Handoff: handlers.handoff,
};
const ARNS = Object.fromEntries(
  Object.keys(TASKS).map((t) => [t, `arn:aws:lambda:us-east-1:123456789012:function:${t}`]),
) as Record<TaskName, string>;

/** What an execution of the definition ends with: its outcome, or the handoff that ended it. */
export interface ExecutionResult {
  outcome?: { status: string; output?: string | null };
  handoff?: { handedOff: boolean };
}

/** Run one execution of the definition on the functions' handlers, as Step Functions would. */
export async function execute(input: ExecutionInput): Promise<ExecutionResult> {
  const machine = new StateMachine(renderDefinition(ARNS) as never, {
    validationOptions: { checkArn: false },
  });
  const execution = machine.run(input as never, {
    context: { StateMachine: { Id: STATE_MACHINE_ARN, Name: "RunMachine" } },
    overrides: {
      taskResourceLocalHandlers: TASK_HANDLERS as never,
      retryIntervalOverrides: Object.fromEntries(Object.keys(TASKS).map((t) => [t, 0])),
    },
  });
  return (await execution.result) as ExecutionResult;
}
