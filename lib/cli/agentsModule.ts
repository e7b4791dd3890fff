import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentFactory } from "../agents/registry.ts";
import { errorMessage } from "../core/errors.ts";
import { NAMES } from "../runtime/config.ts";
import { UsageError } from "./usage.ts";

/**
 * Load the agents of a user's module (`export const agents = { name: defineAgent(...) }`),
 * named by `--agents PATH` or the agents variable, relative to the working directory. TypeScript
 * modules load directly on Node 22.18 or later (type stripping); otherwise compile them first.
 */
export async function loadAgentsModule(
  path: string,
  flag = "--agents",
): Promise<Readonly<Record<string, AgentFactory>>> {
  if (path.trim() === "") throw new UsageError(`${flag} needs the path of a module exporting \`agents\``);
  const full = resolve(path);
  if (!existsSync(full) || !statSync(full).isFile()) {
    throw new UsageError(`${flag}: ${full} is not a file (expected a module exporting \`agents\`)`);
  }
  let module: { agents?: unknown };
  try {
    module = (await import(pathToFileURL(full).href)) as { agents?: unknown };
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
  return agents as Readonly<Record<string, AgentFactory>>;
}

/** The agents `--agents` or the configured module (its variable) names, or undefined for the built-in ones. */
export async function agentsOption(
  flag: string | undefined,
  configured: string | undefined,
): Promise<Readonly<Record<string, AgentFactory>> | undefined> {
  if (flag !== undefined) return loadAgentsModule(flag);
  return configured === undefined ? undefined : loadAgentsModule(configured, NAMES.agents);
}
