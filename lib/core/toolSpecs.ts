import * as z from "zod";
import { errorMessage, InvalidInputError } from "./errors.ts";

/** A tool as the model sees it. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** What of a tool (ports/tool.ts) the model is told: core sees tools only this far. */
export interface DescribedTool {
  name: string;
  description: string;
  parameters: z.ZodType;
}

const specs = new WeakMap<DescribedTool, ToolSpec>();

/**
 * A tool as the model sees it: name, description and JSON Schema of the arguments.
 * InvalidInputError naming the tool when its schema has no JSON Schema (`z.date()`, a
 * `z.custom()` …): the tool is wrong, not the model, so defineTool calls this when a tool is
 * declared and CallModel before it calls the model.
 */
export function toolSpec(tool: DescribedTool): ToolSpec {
  const known = specs.get(tool);
  if (known) return known;
  let schema: Record<string, unknown>;
  try {
    schema = z.toJSONSchema(tool.parameters, { io: "input" }) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidInputError(
      `tool ${tool.name}: its parameters cannot be sent to a model as JSON Schema: ${errorMessage(error)}`,
      { cause: error, field: "parameters" },
    );
  }
  const { $schema: _, ...parameters } = schema;
  const root = objectRootProblem(parameters);
  if (root !== undefined) {
    throw new InvalidInputError(
      `tool ${tool.name}: parameters must be an object schema (z.object({ … })): a model's tool arguments are a JSON object, and ${root}`,
      { field: "parameters" },
    );
  }
  const spec = { name: tool.name, description: tool.description, parameters };
  specs.set(tool, spec);
  return spec;
}

/**
 * Why a JSON Schema's root is not an object, in words, or undefined when it is one. Tool arguments
 * (OpenAI's function parameters, Bedrock's inputSchema) and OpenAI's structured outputs take only
 * an object at the root.
 */
export function objectRootProblem(schema: Record<string, unknown>): string | undefined {
  if (schema.type === "object") return undefined;
  if (schema.type !== undefined) return `this schema is of type ${JSON.stringify(schema.type)}`;
  const combined = ["anyOf", "oneOf", "allOf"].find((key) => schema[key] !== undefined);
  return combined === undefined
    ? "this schema does not say its type is object"
    : `this schema's root is ${combined} (a union or intersection), not an object`;
}

/** The agent's tools as the model sees them (see toolSpec). */
export function toolSpecs(agent: { tools: readonly DescribedTool[] }): ToolSpec[] {
  return agent.tools.map(toolSpec);
}
