import { renderDefinition, TASKS, type TaskName } from "../../workflow/definition.ts";
import { groupTaskName, type ToolGroups } from "../../workflow/toolGroups.ts";
import { compileDefinition } from "./asl/compile.ts";
import type { Machine } from "./asl/machine.ts";

/**
 * The state machine a local orchestrator runs: lib/workflow's definition, the one a stack
 * deploys, rendered with a Lambda ARN of this process for each task and tool group, and compiled
 * once (lib/runtime/local/asl), so a definition the interpreter does not support is refused when
 * the orchestrator is made, not on a first run.
 */

const localArn = (name: string) => `arn:aws:lambda:us-east-1:000000000000:function:runlog-${name}`;
const LOCAL_ARNS = Object.fromEntries(Object.keys(TASKS).map((task) => [task, localArn(task)])) as Record<
  TaskName,
  string
>;

/** What `$$` holds in a local execution: the state machine (Handoff passes its Id on). */
export const LOCAL_CONTEXT = {
  StateMachine: {
    Id: "arn:aws:states:us-east-1:000000000000:stateMachine:runlog-local",
    Name: "runlog-local",
  },
};

/** The names of the tool groups, in the order they were given. */
export const groupNames = (toolGroups: ToolGroups | undefined): string[] => Object.keys(toolGroups ?? {});

/**
 * The definition compiled for this process: each Resource maps to the handler of the same name,
 * a task's or a tool group's Task; the groups are routed as a deployment with the same
 * `toolGroups` routes them (the same tools, no sizing: no function timeouts here).
 */
export function compileLocalMachine(
  toolGroups: ToolGroups | undefined,
  executionTimeoutSeconds: number | undefined,
): Machine {
  const groups = groupNames(toolGroups);
  const handlerNames = [...Object.keys(TASKS), ...groups.map(groupTaskName)];
  const groupsOption =
    groups.length === 0
      ? undefined
      : Object.fromEntries(Object.entries(toolGroups ?? {}).map(([name, tools]) => [name, { tools }]));
  return compileDefinition(
    renderDefinition(
      LOCAL_ARNS,
      { timeoutSeconds: executionTimeoutSeconds, toolGroups: groupsOption },
      Object.fromEntries(groups.map((group) => [group, localArn(groupTaskName(group))])),
    ),
    { resources: Object.fromEntries(handlerNames.map((name) => [localArn(name), name])) },
  );
}
