import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentFactory } from "../agents/registry.ts";
import type { PriceTable } from "../core/budget.ts";
import { errorMessage } from "../core/errors.ts";
import type { ModelProviders } from "../ports/model.ts";
import { NAMES } from "../runtime/config.ts";
import { UsageError } from "./usage.ts";

/** What a user's agents module gives: its agents, and the model providers it exports beside them. */
export interface AgentsModule {
  agents: Readonly<Record<string, AgentFactory>>;
  /** `export const models = { echo: (name) => model }`, if the module has it. */
  models?: ModelProviders;
  /** `export const prices = { "openai:gpt-4.1-mini": { inputUsdPerMillion, outputUsdPerMillion } }`, if the module has it. */
  prices?: PriceTable;
}

/**
 * Load the agents of a user's module (`export const agents = { name: defineAgent(...) }`, and
 * optionally `export const models = { prefix: (name) => model }` and `export const prices`), named by `--agents PATH` or the
 * agents variable, relative to the working directory. TypeScript modules load directly on Node
 * 22.18 or later (type stripping); otherwise compile them first.
 */
export async function loadAgentsModule(path: string, flag = "--agents"): Promise<AgentsModule> {
  if (path.trim() === "") throw new UsageError(`${flag} needs the path of a module exporting \`agents\``);
  const full = resolve(path);
  if (!existsSync(full) || !statSync(full).isFile()) {
    throw new UsageError(`${flag}: ${full} is not a file (expected a module exporting \`agents\`)`);
  }
  let module: { agents?: unknown; models?: unknown; prices?: unknown };
  try {
    module = (await import(pathToFileURL(full).href)) as {
      agents?: unknown;
      models?: unknown;
      prices?: unknown;
    };
  } catch (error) {
    const hint =
      (error as NodeJS.ErrnoException).code === "ERR_UNKNOWN_FILE_EXTENSION"
        ? " (TypeScript needs Node 22.18 or later, or compile the module to JavaScript)"
        : "";
    throw new UsageError(`${flag}: cannot load ${full}: ${errorMessage(error)}${hint}`, { cause: error });
  }
  const { agents } = module;
  if (typeof agents !== "object" || agents === null || Array.isArray(agents)) {
    throw new UsageError(
      `${flag}: ${full} must export \`agents\`, an object of agents by name (export const agents = { support })`,
    );
  }
  const entries = Object.entries(agents);
  if (entries.length === 0) throw new UsageError(`${flag}: ${full} exports no agents`);
  for (const [name, factory] of entries) {
    if (typeof factory !== "function") {
      throw new UsageError(
        `${flag}: agents.${name} in ${full} is not an agent; make it with defineAgent(...)`,
      );
    }
  }
  let models: ModelProviders | undefined;
  let prices: PriceTable | undefined;
  try {
    if (module.models !== undefined) {
      // Loaded only for a module that has providers: the model adapters are no read command's.
      const { checkProviders } = await import("../runtime/models.ts");
      models = checkProviders(module.models);
    }
    if (module.prices !== undefined) {
      // Loaded only for a module that has prices: their schema (zod) is no read command's either.
      const { checkPrices } = await import("../core/budget.ts");
      prices = checkPrices(module.prices);
    }
  } catch (error) {
    throw new UsageError(`${flag}: ${full}: ${errorMessage(error)}`, { cause: error });
  }
  return {
    agents: agents as Readonly<Record<string, AgentFactory>>,
    ...(models === undefined ? {} : { models }),
    ...(prices === undefined ? {} : { prices }),
  };
}

/** The module `--agents` or the agents variable names, or undefined for the built-in agents. */
export async function agentsOption(
  flag: string | undefined,
  configured: string | undefined,
): Promise<AgentsModule | undefined> {
  if (flag !== undefined) return loadAgentsModule(flag);
  return configured === undefined ? undefined : loadAgentsModule(configured, NAMES.agents);
}
