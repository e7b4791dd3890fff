import { NotFoundError } from "../core/errors.ts";
import type { Agent, AgentContext, AgentRegistry } from "../ports/tool.ts";
import { demoAgent } from "./demo.ts";

/**
 * Makes an agent for a context (defineAgent). `Output` is the type of its runs' outcome `output`:
 * the value its `output` schema gives, or the answer's text (a type only: see OutputOf).
 */
export type AgentFactory<Output = unknown> = ((context: AgentContext) => Agent) & {
  readonly __output?: Output;
  /** The name of the agents it makes (defineAgent sets it). */
  readonly agentName?: string;
};

/** The agents this build knows, by name. */
export const BUILT_IN_AGENTS: Readonly<Record<string, AgentFactory>> = { demo: demoAgent };

/** A registry over named factories; an unknown name is a NotFoundError listing the known ones. */
export function agentRegistry(
  context: AgentContext,
  factories: Readonly<Record<string, AgentFactory>> = BUILT_IN_AGENTS,
): AgentRegistry {
  const cache = new Map<string, Agent>();
  // An agent only reachable as a sub-agent (agentAsTool) of a registered one is found through it.
  const subagentOf = (name: string): ((context: AgentContext) => Agent) | undefined => {
    for (const known of Object.values(factories)) {
      const found = known(context).tools.find((tool) => tool.subagent?.agent === name);
      if (found) return found.subagent!.make;
    }
    return undefined;
  };
  return (name) => {
    const known = cache.get(name);
    if (known) return known;
    const factory = Object.hasOwn(factories, name) ? factories[name] : subagentOf(name);
    if (!factory) {
      throw new NotFoundError(
        `unknown agent ${JSON.stringify(name)}; known agents: ${Object.keys(factories).join(", ")}`,
      );
    }
    const agent = factory(context);
    cache.set(name, agent);
    return agent;
  };
}
