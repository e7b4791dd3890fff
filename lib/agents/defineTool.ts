import type { z } from "zod";
import { InvalidInputError } from "../core/errors.ts";
import { toolSpec } from "../core/toolSpecs.ts";
import type { Tool, ToolContext } from "../ports/tool.ts";

/** How long a tool may run before its call is answered with a timeout error. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface ToolDefinition<Schema extends z.ZodType> {
  name: string;
  description: string;
  /** Arguments are validated against this before `run` sees them. */
  parameters: Schema;
  /** Safe to run again after an interruption. @default false */
  idempotent?: boolean;
  /** @default 60000 */
  timeoutMs?: number;
  /** A person must approve each call (or each call for which this returns true) before it runs. @default false */
  needsApproval?: boolean | ((args: z.output<Schema>) => boolean);
  /**
   * With `needsApproval`: how long (ms) after the model asked for a call that call waits for a
   * decision. Undecided by then, it is answered as rejected with the reason "approval expired"
   * (a decision `by: "timeout"`) and the run goes on. The deadline is the log's (the asking
   * response's time plus this), so it holds across restarts; the sweep (`runlog sweep`, the
   * deployed sweeper) records the expiry. @default no expiry: a call waits for a person however long
   */
  approvalTimeoutMs?: number;
  run(args: z.output<Schema>, context: ToolContext): Promise<unknown> | unknown;
}

/**
 * Declare a tool: its name, what it does, its argument schema and what it runs. A schema a model
 * cannot be sent (no JSON Schema for it, e.g. `z.date()`) fails here, not in a run.
 */
export function defineTool<Schema extends z.ZodType>(
  definition: ToolDefinition<Schema>,
): Tool<z.output<Schema>> {
  if (!NAME.test(definition.name)) {
    throw new InvalidInputError(
      `tool name ${JSON.stringify(definition.name)} must be 1-64 letters, digits, "_" or "-"`,
    );
  }
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new InvalidInputError(
      `tool ${definition.name}: timeoutMs must be a positive integer, got ${timeoutMs}`,
    );
  }
  const { approvalTimeoutMs } = definition;
  if (approvalTimeoutMs !== undefined) {
    if (!Number.isInteger(approvalTimeoutMs) || approvalTimeoutMs <= 0) {
      throw new InvalidInputError(
        `tool ${definition.name}: approvalTimeoutMs must be a positive integer, got ${approvalTimeoutMs}`,
        { field: "approvalTimeoutMs" },
      );
    }
    if (definition.needsApproval === undefined || definition.needsApproval === false) {
      throw new InvalidInputError(
        `tool ${definition.name}: approvalTimeoutMs needs needsApproval: no call of this tool waits for approval`,
        { field: "approvalTimeoutMs" },
      );
    }
  }
  const tool: Tool<z.output<Schema>> = {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters as z.ZodType<z.output<Schema>>,
    idempotent: definition.idempotent ?? false,
    timeoutMs,
    needsApproval: (args) => {
      const rule = definition.needsApproval ?? false;
      return typeof rule === "function" ? rule(args) : rule;
    },
    run: async (args, context) => definition.run(args, context),
    ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
  };
  toolSpec(tool as Tool<unknown>);
  return tool;
}
