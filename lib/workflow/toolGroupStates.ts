import { taskStateTimeoutSeconds } from "./timeouts.ts";
import { groupPlaceholder, groupTaskName } from "./toolGroups.ts";

/** Tool groups as the definition needs them: each group's tools, and its function's timeout when sized. */
export type ToolGroupsOption = Readonly<
  Record<string, { tools: readonly string[]; timeoutSeconds?: number | undefined }>
>;

type States = Record<string, Record<string, unknown>>;

const byName = (tool: string) => ({ Variable: "$.tool", StringEquals: tool });

/**
 * Route each tool call of the RunTools Map to its group's Task (a copy of RunTool whose Resource is
 * the group's function), ungrouped calls to RunTool. Each Map item gets its call's tool name from
 * `next.tools` (lib/steps/nextAction.ts). A `next` without it (written by a function deployed before
 * the groups) goes to CallModel, which answers the same calls again with their names and calls no
 * model: no call runs in a function other than its group's.
 */
export function groupedToolStates(states: States, groups: ToolGroupsOption): void {
  const route = states.Route!;
  const choices = route.Choices as Record<string, unknown>[];
  const tools = choices.findIndex((c) => c.StringEquals === "tools");
  choices.splice(
    tools,
    1,
    {
      And: [
        { Variable: "$.next.action", StringEquals: "tools" },
        { Variable: "$.next.tools", IsPresent: true },
      ],
      Next: "RunTools",
    },
    { Variable: "$.next.action", StringEquals: "tools", Next: "CallModel" },
  );
  const map = states.RunTools!;
  map.ItemSelector = {
    ...(map.ItemSelector as object),
    "tool.$": "States.ArrayGetItem($.next.tools, $$.Map.Item.Index)",
  };
  const processor = map.ItemProcessor as { StartAt: string; States: States };
  const runTool = processor.States.RunTool!;
  const routeTool = {
    Type: "Choice",
    Choices: Object.entries(groups).map(([group, { tools: names }]) => ({
      ...(names.length === 1 ? byName(names[0]!) : { Or: names.map(byName) }),
      Next: groupTaskName(group),
    })),
    Default: "RunTool",
  };
  processor.StartAt = "RouteTool";
  processor.States = { RouteTool: routeTool, ...processor.States };
  for (const [group, { timeoutSeconds }] of Object.entries(groups)) {
    processor.States[groupTaskName(group)] = {
      ...structuredClone(runTool),
      Resource: `\${${groupPlaceholder(group)}}`,
      ...(timeoutSeconds === undefined
        ? {}
        : { TimeoutSeconds: taskStateTimeoutSeconds("RunTool", timeoutSeconds) }),
    };
  }
}
