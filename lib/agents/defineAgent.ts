import type { z } from "zod";
import { agentLimits, checkLimits, type Limits } from "../core/budget.ts";
import { errorMessage, InvalidInputError } from "../core/errors.ts";
import { checkModelSettings, type ModelSettings } from "../core/modelSettings.ts";
import {
  DEFAULT_OUTPUT_RETRIES,
  MAX_OUTPUT_RETRIES,
  type OutputSpec,
  outputJsonSchema,
} from "../core/structuredOutput.ts";
import { toolSpec } from "../core/toolSpecs.ts";
import type { Agent, AgentContext, Tool } from "../ports/tool.ts";
import type { AgentFactory } from "./registry.ts";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface AgentDefinition<Output extends z.ZodType | undefined = undefined> {
  /** The name runs are started with (`runlog run --agent NAME`, `runlog.start({ agent })`). */
  name: string;
  /** The system prompt. */
  instructions: string;
  /** The model spec used unless a run names another, e.g. `openai:gpt-4.1-mini` or `scripted:FILE`. */
  model: string;
  /** Its tools, or a function of the agent's context that makes them (for tools that keep files). @default none */
  tools?: readonly Tool[] | ((context: AgentContext) => readonly Tool[]);
  /**
   * The most one run may spend: model turns, tokens, US dollars (priced by the price table). A
   * start may ask for less, never more; a person may raise a run's limits when resuming it.
   * @default { maxTurns: 100 } (DEFAULT_MAX_TURNS)
   */
  limits?: Limits;
  /**
   * How its runs call the model: temperature, maxOutputTokens, topP, stopSequences,
   * providerOptions (lib/core/modelSettings.ts). A run may change them at start, resume or fork,
   * but never ask for more output tokens than this; a model that cannot honour one refuses the run
   * at start. @default none: the provider's defaults
   */
  modelSettings?: ModelSettings;
  /**
   * What the final answer must be: JSON this zod schema accepts (its JSON Schema is sent to models
   * that can be asked for it). The run's outcome `output` is then the value the schema gives; an
   * answer that does not fit is sent back with its problems (docs/guides/structured-output.md).
   * @default none: the final answer is text
   */
  output?: Output;
  /**
   * How many times an answer that does not fit `output` is sent back before the run ends
   * `invalid_output` (0 to MAX_OUTPUT_RETRIES). @default 2 (DEFAULT_OUTPUT_RETRIES)
   */
  outputRetries?: number;
}

/** The type of an agent's outcome `output`: what its `output` schema gives, or the answer's text. */
export type OutputOf<A> = A extends AgentFactory<infer Output> ? Output : never;

/**
 * Declare an agent. The definition is checked now, so a bad name, an empty model
 * or two tools with one name fail where they are written, not in the first run.
 */
export function defineAgent<Output extends z.ZodType | undefined = undefined>(
  definition: AgentDefinition<Output>,
): AgentFactory<Output extends z.ZodType ? z.output<Output> : string> {
  const where = `agent ${JSON.stringify(definition.name)}`;
  if (typeof definition.name !== "string" || !NAME.test(definition.name)) {
    throw new InvalidInputError(`${where}: name must be 1-64 letters, digits, "_" or "-"`);
  }
  if (typeof definition.instructions !== "string") {
    throw new InvalidInputError(`${where}: instructions must be a string`);
  }
  if (typeof definition.model !== "string" || definition.model.trim() === "") {
    throw new InvalidInputError(`${where}: model must name a model, e.g. "openai:gpt-4.1-mini"`);
  }
  const given = definition.limits;
  const limits = agentLimits(given === undefined ? undefined : within(where, () => checkLimits(given)));
  const settings = definition.modelSettings;
  const modelSettings =
    settings === undefined ? undefined : within(where, () => checkModelSettings(settings));
  const output = outputSpec(where, definition);
  const { tools } = definition;
  if (typeof tools !== "function") checkTools(where, tools ?? []);
  const factory = (context: AgentContext) => {
    const made = typeof tools === "function" ? tools(context) : (tools ?? []);
    if (typeof tools === "function") checkTools(where, made);
    const agent: Agent = {
      name: definition.name,
      instructions: definition.instructions,
      tools: made,
      defaultModel: definition.model,
      limits,
      ...(modelSettings === undefined ? {} : { modelSettings }),
      ...(output === undefined ? {} : { output }),
    };
    return agent;
  };
  return Object.assign(factory, { agentName: definition.name });
}

/** The agent's output spec, checked: a schema that has a JSON Schema, a whole number of retries. */
function outputSpec(
  where: string,
  { output, outputRetries }: { output?: z.ZodType | undefined; outputRetries?: number },
): OutputSpec | undefined {
  if (output === undefined) {
    if (outputRetries !== undefined) {
      throw new InvalidInputError(
        `${where}: outputRetries is set but output is not: give output a zod schema`,
        {
          field: "outputRetries",
        },
      );
    }
    return undefined;
  }
  if (typeof (output as { safeParse?: unknown })?.safeParse !== "function") {
    throw new InvalidInputError(`${where}: output must be a zod schema, e.g. z.object({ … })`, {
      field: "output",
    });
  }
  const retries = outputRetries ?? DEFAULT_OUTPUT_RETRIES;
  if (!Number.isInteger(retries) || retries < 0 || retries > MAX_OUTPUT_RETRIES) {
    throw new InvalidInputError(
      `${where}: outputRetries must be a whole number from 0 to ${MAX_OUTPUT_RETRIES}, got ${JSON.stringify(outputRetries)}`,
      { field: "outputRetries" },
    );
  }
  const jsonSchema = within(where, () => outputJsonSchema(output));
  return { schema: output, jsonSchema, retries };
}

/** What `check` returns; its InvalidInputError is told again with the agent named first. */
function within<T>(where: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(`${where}: ${error.message}`, {
      cause: error,
      ...(error.field === undefined ? {} : { field: error.field }),
    });
  }
}

function checkTools(where: string, tools: readonly Tool[]): void {
  if (!Array.isArray(tools))
    throw new InvalidInputError(`${where}: tools must be an array of defineTool(...)`);
  const seen = new Set<string>();
  for (const [index, tool] of tools.entries()) {
    if (typeof tool?.name !== "string" || typeof tool.run !== "function") {
      throw new InvalidInputError(`${where}: tools[${index}] is not a tool; make it with defineTool(...)`);
    }
    if (seen.has(tool.name)) throw new InvalidInputError(`${where}: two tools are named ${tool.name}`);
    seen.add(tool.name);
    // A tool made without defineTool meets its schema check here, before any run.
    try {
      toolSpec(tool);
    } catch (error) {
      throw new InvalidInputError(`${where}: ${errorMessage(error)}`, { cause: error });
    }
  }
}
