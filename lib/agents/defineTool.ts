import type { z } from "zod";
import { InvalidInputError } from "../core/errors.ts";
import { toolSpec } from "../core/toolSpecs.ts";
import type { Tool, ToolContext } from "../ports/tool.ts";

/** How long a tool may run before its call is answered with a timeout error. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** What a tool may be named (as a model calls it): 1-64 letters, digits, "_" or "-". */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

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
  if (typeof definition !== "object" || definition === null) {
    throw new InvalidInputError(
      `defineTool: give it a definition ({ name, description, parameters, run }), got ${shown(definition)}`,
      {
        field: "definition",
      },
    );
  }
  if (typeof definition.name !== "string" || !TOOL_NAME.test(definition.name)) {
    throw new InvalidInputError(
      `defineTool: name, the tool's name as the model calls it, must be 1-64 letters, digits, "_" or "-"; got ${shown(definition.name)}`,
      { field: "name" },
    );
  }
  const where = `tool ${definition.name}`;
  if (typeof definition.description !== "string") {
    throw new InvalidInputError(
      `${where}: description must be a string, got ${shown(definition.description)}`,
      {
        field: "description",
      },
    );
  }
  if (!isZodSchema(definition.parameters)) {
    throw new InvalidInputError(
      `${where}: parameters must be a zod schema, e.g. z.object({ … }), got ${shown(definition.parameters)}`,
      { field: "parameters" },
    );
  }
  if (typeof definition.run !== "function") {
    throw new InvalidInputError(
      `${where}: run must be a function (args, context) => result, got ${shown(definition.run)}`,
      {
        field: "run",
      },
    );
  }
  if (definition.idempotent !== undefined && typeof definition.idempotent !== "boolean") {
    throw new InvalidInputError(
      `${where}: idempotent must be true or false, got ${shown(definition.idempotent)}`,
      {
        field: "idempotent",
      },
    );
  }
  const rule: unknown = definition.needsApproval;
  if (rule !== undefined && typeof rule !== "boolean" && typeof rule !== "function") {
    throw new InvalidInputError(
      `${where}: needsApproval must be true, false or a function of the arguments, got ${shown(rule)}`,
      { field: "needsApproval" },
    );
  }
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  checkMs(where, "timeoutMs", timeoutMs);
  const { approvalTimeoutMs } = definition;
  if (approvalTimeoutMs !== undefined) {
    checkMs(where, "approvalTimeoutMs", approvalTimeoutMs);
    if (definition.needsApproval === undefined || definition.needsApproval === false) {
      throw new InvalidInputError(
        `${where}: approvalTimeoutMs needs needsApproval: no call of this tool waits for approval`,
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

/** The longest wait a timer takes: a longer one fires at once (Node's setTimeout). */
const MAX_TIMER_MS = 2_147_483_647;

function checkMs(where: string, field: string, value: unknown): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new InvalidInputError(
      `${where}: ${field} must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${shown(value)}`,
      { field },
    );
  }
}

/** A zod schema (zod 4 marks each with `_zod`; it must also parse). */
function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** A value as an error tells it, its type shown: `the string "100"`, `5`, `a function`, `undefined`. */
export function shown(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number" || typeof value === "boolean" || value === null || value === undefined) {
    return String(value);
  }
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
