import { errorMessage } from "../core/errors.ts";
import { checkToolGroups, type ToolGroups } from "../runtime/local/localRuntime.ts";
import { UsageError } from "./usage.ts";

/**
 * `--tool-group NAME=TOOL,TOOL` (repeatable) as tool groups: the same groups a stack's `toolGroups`
 * names, so `runlog serve` runs the definition the stack deploys. Undefined when none are given.
 */
export function toolGroupsOption(values: readonly string[] | undefined): ToolGroups | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const groups: Record<string, string[]> = {};
  for (const value of values) {
    const at = value.indexOf("=");
    if (at <= 0)
      throw new UsageError(`serve: --tool-group takes NAME=TOOL,TOOL…, got ${JSON.stringify(value)}`);
    const name = value.slice(0, at);
    if (name in groups) throw new UsageError(`serve: --tool-group ${name} is given twice`);
    groups[name] = value
      .slice(at + 1)
      .split(",")
      .filter((tool) => tool !== "");
  }
  try {
    return checkToolGroups(groups, "--tool-group");
  } catch (error) {
    throw new UsageError(`serve: ${errorMessage(error)}`, { cause: error });
  }
}
