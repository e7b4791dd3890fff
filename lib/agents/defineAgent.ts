import { agentLimits, checkLimits, type Limits } from "../core/budget.ts";
import { errorMessage, InvalidInputError } from "../core/errors.ts";
import { checkModelSettings, type ModelSettings } from "../core/modelSettings.ts";
import { toolSpec } from "../core/toolSpecs.ts";
import type { Agent, AgentContext, Tool } from "../ports/tool.ts";
import type { AgentFactory } from "./registry.ts";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface AgentDefinition {
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
}

/**
 * Declare an agent. The definition is checked now, so a bad name, an empty model
 * or two tools with one name fail where they are written, not in the first run.
 */
export function defineAgent(definition: AgentDefinition): AgentFactory {
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
  const { tools } = definition;
  if (typeof tools !== "function") checkTools(where, tools ?? []);
  return (context) => {
    const made = typeof tools === "function" ? tools(context) : (tools ?? []);
    if (typeof tools === "function") checkTools(where, made);
    const agent: Agent = {
      name: definition.name,
      instructions: definition.instructions,
      tools: made,
      defaultModel: definition.model,
      limits,
      ...(modelSettings === undefined ? {} : { modelSettings }),
    };
    return agent;
  };
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
