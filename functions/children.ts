import type { AwsDeps } from "../lib/runtime/aws/handlerDeps.ts";
import type { StepDeps } from "../lib/steps/deps.ts";

/**
 * The step deps of a task that may start or resume runs of its own state machine (RunTool starts
 * a sub-agent's child, Finish resumes a child's parent): told the machine by its execution
 * (`$$.StateMachine.Id`), as Handoff is, since a reference in its environment would be a cycle.
 */
export function withChildren(aws: AwsDeps, stateMachineArn: string | undefined): StepDeps {
  if (stateMachineArn === undefined) return aws.steps;
  return { ...aws.steps, control: () => aws.controlFor(stateMachineArn) };
}
