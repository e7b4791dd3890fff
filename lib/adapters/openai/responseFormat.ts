import type { ResponseFormatJSONSchema } from "openai/resources/shared";
import type { OutputFormat } from "../../core/structuredOutput.ts";

/**
 * The Chat Completions `response_format` for an agent's output schema: `json_schema`, with
 * `strict` only when the schema meets strict mode's rules (below), because a server in strict mode
 * rejects a schema that does not (an optional property, an open object), and the answer is checked
 * against the agent's own schema whichever way the model was asked.
 */
export function toResponseFormat(output: OutputFormat): ResponseFormatJSONSchema {
  return {
    type: "json_schema",
    json_schema: {
      name: output.name,
      schema: output.schema,
      ...(qualifiesForStrict(output.schema) ? { strict: true } : {}),
    },
  };
}

/** The JSON Schema keywords strict mode takes (OpenAI's structured outputs: supported schemas). */
const STRICT_KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "description",
  "title",
  "$defs",
  "$ref",
]);

/**
 * Whether a schema may be sent with `strict: true`: every object closed (`additionalProperties:
 * false`) with every property required, and only keywords strict mode takes, all the way down.
 */
export function qualifiesForStrict(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return false;
  const node = schema as Record<string, unknown>;
  if (Object.keys(node).some((key) => !STRICT_KEYWORDS.has(key))) return false;
  if (node.type === "object" || node.properties !== undefined) {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(node.required) ? node.required : [];
    if (node.additionalProperties !== false) return false;
    if (Object.keys(properties).some((name) => !required.includes(name))) return false;
    if (!Object.values(properties).every(qualifiesForStrict)) return false;
  }
  if (node.items !== undefined && !qualifiesForStrict(node.items)) return false;
  if (Array.isArray(node.anyOf) && !node.anyOf.every(qualifiesForStrict)) return false;
  if (node.$defs !== undefined) {
    if (typeof node.$defs !== "object" || node.$defs === null) return false;
    if (!Object.values(node.$defs).every(qualifiesForStrict)) return false;
  }
  return true;
}
