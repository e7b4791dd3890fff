import { InvalidInputError } from "../core/errors.ts";

/**
 * Tool groups: the tools each group's own RunTool function runs, by group name. Tools in no group
 * run in the default RunTool function. The same groups give the same definition in a stack
 * (cdk's `toolGroups`) and locally (`openLocal({ toolGroups })`).
 */
export type ToolGroups = Readonly<Record<string, readonly string[]>>;

/** A group's name: a letter, then letters and digits (it names a state, a placeholder and a construct). */
export const TOOL_GROUP_NAME = /^[A-Za-z][A-Za-z0-9]{0,39}$/;
/** Names a group may not take: the default function's. */
const RESERVED = new Set(["default", "runtool"]);

/** The Task state (in the RunTools Map) that runs a group's calls. */
export const groupTaskName = (group: string): string => `RunTool${group[0]!.toUpperCase()}${group.slice(1)}`;
/** The DefinitionSubstitutions placeholder of a group's function. */
export const groupPlaceholder = (group: string): string => `${groupTaskName(group)}GroupFunctionArn`;

/** What is wrong with a set of tool groups, naming the group (`payments`, or `payments.tools`), if anything. */
export interface ToolGroupsProblem {
  /** Where, under the groups: `payments`, `payments.tools`. */
  at: string;
  problem: string;
}

/** The first problem with `groups`, or undefined when every group is well formed and no tool is in two. */
export function toolGroupsProblem(groups: unknown): ToolGroupsProblem | undefined {
  if (typeof groups !== "object" || groups === null || Array.isArray(groups)) {
    return { at: "", problem: `must be an object of groups by name, got ${shown(groups)}` };
  }
  const owner = new Map<string, string>();
  const tasks = new Map<string, string>();
  for (const [name, tools] of Object.entries(groups as Record<string, unknown>)) {
    if (!TOOL_GROUP_NAME.test(name)) {
      return {
        at: name,
        problem: "is not a group name: a letter, then up to 39 letters and digits",
      };
    }
    if (RESERVED.has(name.toLowerCase())) {
      return { at: name, problem: "is the default RunTool function's name: ungrouped tools run there" };
    }
    // Two names differing in their first letter's case would name one state.
    const task = groupTaskName(name);
    const same = tasks.get(task);
    if (same !== undefined) return { at: name, problem: `names the same function as group ${same}` };
    tasks.set(task, name);
    if (!Array.isArray(tools)) {
      return { at: `${name}.tools`, problem: `must be an array of tool names, got ${shown(tools)}` };
    }
    if (tools.length === 0) return { at: `${name}.tools`, problem: "must name at least one tool, got []" };
    for (const tool of tools) {
      if (typeof tool !== "string" || tool === "") {
        return { at: `${name}.tools`, problem: `must be tool names, got ${JSON.stringify(tool)}` };
      }
      const other = owner.get(tool);
      if (other === name) return { at: `${name}.tools`, problem: `names ${tool} twice` };
      if (other !== undefined) {
        return {
          at: `${name}.tools`,
          problem: `names ${tool}, which is in group ${other} too: a tool runs in one group's function`,
        };
      }
      owner.set(tool, name);
    }
  }
  return undefined;
}

/** A value as an error message shows it: JSON, and what kind of value it is. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  const kind = Array.isArray(value) ? "an array" : `a ${typeof value}`;
  return `${JSON.stringify(value) ?? String(value)} (${kind})`;
}

/** The tools calls can be made to (the agents' tools, lib/agents/toolNames.ts): what a group may name. */
export interface KnownTools {
  has(tool: string): boolean;
  /** The names, as a message lists them (`shop__*` for an MCP server's tools). */
  readonly names: readonly string[];
}

/**
 * The first group naming a tool that is not `known`: its calls would never come, and the tool meant
 * would run in the default function instead of the group's.
 */
export function unknownToolProblem(groups: ToolGroups, known: KnownTools): ToolGroupsProblem | undefined {
  for (const [name, tools] of Object.entries(groups)) {
    const unknown = tools.find((tool) => !known.has(tool));
    if (unknown !== undefined) {
      return {
        at: `${name}.tools`,
        problem: `names ${unknown}, a tool no agent has (its calls would run in the default function); the agents' tools are ${known.names.join(", ") || "none"}`,
      };
    }
  }
  return undefined;
}

/**
 * `groups`, checked: an InvalidInputError naming `field` and the group when they are not well
 * formed, or (given the agents' tools) name a tool no agent has.
 */
export function checkToolGroups(groups: unknown, field = "toolGroups", known?: KnownTools): ToolGroups {
  const found =
    toolGroupsProblem(groups) ??
    (known === undefined ? undefined : unknownToolProblem(groups as ToolGroups, known));
  if (found) {
    const where = found.at === "" ? field : `${field}.${found.at}`;
    throw new InvalidInputError(`${where} ${found.problem}`, { field: where });
  }
  return groups as ToolGroups;
}
