import * as z from "zod";
import { errorMessage, InvalidInputError } from "./errors.ts";
import type { JsonValue } from "./metadata.ts";
import { objectRootProblem } from "./toolSpecs.ts";
import { WITHOUT_JIT } from "./withoutJit.ts";

/** How many times a rejected final answer is sent back to the model before the run ends `invalid_output`. */
export const DEFAULT_OUTPUT_RETRIES = 2;

/** The most retries an agent may ask for: each is a model turn, and the budget counts them too. */
export const MAX_OUTPUT_RETRIES = 10;

/** A JSON value, as a final answer's `output` is stored in the log. */
export type { JsonValue };

/**
 * What an agent's final answer must be (defineAgent's `output`): the zod schema that checks it,
 * the same as JSON Schema for the providers that can ask the model for it, and how many rejected
 * answers the model is told about before the run ends `invalid_output`.
 */
export interface OutputSpec {
  schema: z.ZodType;
  /** The schema as JSON Schema (outputJsonSchema: its input side, what is parsed), without `$schema`. */
  jsonSchema: Record<string, unknown>;
  retries: number;
}

/** What a model is told of the answer wanted (ModelRequest.output): a name and its JSON Schema. */
export interface OutputFormat {
  /** A name for the schema, 1-64 letters, digits, "_" or "-" (the agent's name). */
  name: string;
  schema: Record<string, unknown>;
}

/**
 * The instruction that asks for the answer in words, for a provider with no structured-output
 * mode (Bedrock's Converse, a model of the user's own): its final answer is only JSON that fits
 * the schema, which is quoted.
 */
export function outputInstruction(format: OutputFormat): string {
  return (
    "When you give your final answer (a reply that calls no tool), reply with only a JSON value, " +
    "no other text and no code fence, that fits this JSON Schema:\n" +
    JSON.stringify(format.schema)
  );
}

/**
 * The schema as a model is sent it: its input side, what `checkOutput` parses (as a tool's
 * parameters, toolSpecs.ts), so `z.string().pipe(z.coerce.number())` asks for a string. An object
 * that drops unknown keys is sent closed (`additionalProperties: false`): such keys would be
 * dropped anyway, and a closed schema is one OpenAI's strict mode takes. InvalidInputError when
 * either side has no JSON Schema (a transform, `z.date()`, `z.custom()` …): the answer is JSON, and
 * the value parsed from it is stored in the log as JSON.
 */
export function outputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { io: "input", override: closeStrippingObjects }) as Record<
      string,
      unknown
    >;
    // Only a check: the parsed value is stored, so it must be JSON too.
    z.toJSONSchema(schema, { io: "output" });
  } catch (error) {
    throw new InvalidInputError(`output cannot be sent to a model as JSON Schema: ${errorMessage(error)}`, {
      cause: error,
      field: "output",
    });
  }
  const { $schema: _, ...rest } = json;
  const root = objectRootProblem(rest);
  if (root !== undefined) {
    throw new InvalidInputError(
      `output must be an object schema (z.object({ … })): structured outputs take a JSON object as the answer, and ${root}; put the value in a property (z.object({ items: z.array(…) }))`,
      { field: "output" },
    );
  }
  return rest;
}

/** `z.object` (no catchall: unknown keys are stripped) as a closed object; loose and strict ones say so themselves. */
function closeStrippingObjects(context: {
  zodSchema: z.core.$ZodTypes;
  jsonSchema: z.core.JSONSchema.BaseSchema;
}): void {
  const def = context.zodSchema._zod.def;
  if (def.type !== "object" || def.catchall !== undefined) return;
  if (context.jsonSchema.additionalProperties === undefined) context.jsonSchema.additionalProperties = false;
}

/** A final answer checked against an output schema: the value it accepted, or what was wrong, in words. */
export type OutputCheck = { ok: true; value: JsonValue } | { ok: false; problems: string };

/** The most schema issues told to the model: enough to fix an answer, short enough to read. */
const MAX_ISSUES = 10;

/**
 * Parse a final answer as JSON and check it with the schema. The whole text must be the JSON; one
 * Markdown code fence around it is taken off first (models without a JSON mode often add one).
 */
export function checkOutput(text: string, schema: z.ZodType): OutputCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(unfenced(text));
  } catch (error) {
    return { ok: false, problems: `the answer is not JSON (${errorMessage(error)})` };
  }
  const parsed = schema.safeParse(raw, WITHOUT_JIT);
  if (!parsed.success) return { ok: false, problems: issuesText(parsed.error.issues, "answer") };
  // The schema's JSON Schema was checked when the agent was defined, so its output is JSON.
  return { ok: true, value: parsed.data as JsonValue };
}

const FENCE = /^```[A-Za-z]*\s*\n([\s\S]*?)\n?```$/;

function unfenced(text: string): string {
  const trimmed = text.trim();
  return FENCE.exec(trimmed)?.[1] ?? trimmed;
}

/** Zod issues as one short line: `where: message`, `;`-separated; `root` names an issue with no path. */
export function issuesText(issues: readonly z.core.$ZodIssue[], root: string): string {
  const told = issues.slice(0, MAX_ISSUES).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : root;
    return `${where}: ${issue.message}`;
  });
  const more = issues.length - told.length;
  return more > 0 ? `${told.join("; ")}; and ${more} more` : told.join("; ");
}
