import { Token } from "aws-cdk-lib";
import type { IRole } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { DEFAULT_MAX_TOOL_CALLS } from "../lib/workflow/definition.ts";
import { toolGroupsProblem } from "../lib/workflow/toolGroups.ts";
import { type RunlogFunctionSizing, validateFunctionsSizing } from "./functionProps.ts";
import { RunlogPropsError } from "./propsError.ts";
import { describeValue } from "./propsShape.ts";

/** One tool group: the tools its own RunTool function runs, under its own role, sized like `functions.runTool`. */
export interface RunlogToolGroup extends RunlogFunctionSizing {
  /** The names of the tools this group's function runs (each tool in one group at most). */
  tools: string[];
}

/** Tool groups by name (a letter, then letters and digits; not `default`). */
export type RunlogToolGroups = Record<string, RunlogToolGroup>;

/** A tool group's function and its role, to which a team adds the grants its tools need. */
export interface ToolGroup {
  readonly function: LambdaFunction;
  readonly role: IRole;
}

/** Check `toolGroups`: each error names the group and the field (`toolGroups.payments.tools`). */
export function validateToolGroups(groups: unknown, maxToolCalls: number | undefined): void {
  if (groups === undefined) return;
  if (typeof groups !== "object" || groups === null || Array.isArray(groups)) {
    throw new RunlogPropsError(
      "toolGroups",
      `must be an object of groups by name ({ payments: { tools: [...] } }), got ${describeValue(groups)}`,
    );
  }
  // What the shared check (lib/workflow/toolGroups.ts) would misdescribe: a group that is no object, a tool listed twice in one.
  for (const [name, group] of Object.entries(groups)) {
    if (typeof group !== "object" || group === null || Array.isArray(group)) {
      throw new RunlogPropsError(
        `toolGroups.${name}`,
        `must be { tools, ...sizing } (tools: the names of its tools), got ${describeValue(group)}`,
      );
    }
    const tools = (group as { tools?: unknown }).tools;
    if (Array.isArray(tools)) {
      const twice = tools.find((tool, i) => typeof tool === "string" && tools.indexOf(tool) !== i);
      if (twice !== undefined) {
        throw new RunlogPropsError(`toolGroups.${name}.tools`, `names ${JSON.stringify(twice)} twice`);
      }
    }
  }
  const asNames =
    typeof groups === "object" && groups !== null && !Array.isArray(groups)
      ? Object.fromEntries(
          Object.entries(groups).map(([name, group]) => [name, (group as { tools?: unknown } | null)?.tools]),
        )
      : groups;
  const found = toolGroupsProblem(asNames);
  if (found)
    throw new RunlogPropsError(found.at === "" ? "toolGroups" : `toolGroups.${found.at}`, found.problem);
  for (const [name, group] of Object.entries(groups as RunlogToolGroups)) {
    const { tools: _, ...sizing } = group;
    try {
      // A group's function is a RunTool function: the same bounds.
      validateFunctionsSizing({ runTool: sizing }, undefined);
    } catch (error) {
      if (!(error instanceof RunlogPropsError)) throw error;
      const prop = error.prop.replace(/^functions\.runTool/, `toolGroups.${name}`);
      throw new RunlogPropsError(prop, error.message.slice(`runlog: ${error.prop} `.length));
    }
    const reserved = sizing.reservedConcurrency;
    const batch = maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    if (reserved !== undefined && !Token.isUnresolved(reserved) && reserved < batch) {
      throw new RunlogPropsError(
        `toolGroups.${name}.reservedConcurrency`,
        `must be at least concurrency.maxToolCalls (${batch}), so one response's tool calls can run at once; got ${reserved}`,
      );
    }
  }
}
