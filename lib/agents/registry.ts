import { InvalidInputError, NotFoundError } from "../core/errors.ts";
import type { Agent, AgentContext, AgentRegistry } from "../ports/tool.ts";

/**
 * Makes an agent for a context (defineAgent). `Output` is the type of its runs' outcome `output`:
 * the value its `output` schema gives, or the answer's text (a type only: see OutputOf).
 */
export type AgentFactory<Output = unknown> = ((context: AgentContext) => Agent) & {
  readonly __output?: Output;
  /** The agent's name, known without making it (defineAgent sets it): how `handoffs` may name it. */
  readonly agentName?: string;
  /** The names its `handoffs` give, known without making it: checked against the registry when it is made. */
  readonly handoffs?: readonly string[];
};

/** A registry over named factories; an unknown name is a NotFoundError listing the known ones. */
export function agentRegistry(
  context: AgentContext,
  factories: Readonly<Record<string, AgentFactory>>,
): AgentRegistry {
  checkHandoffs(factories);
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

/**
 * Every agent's `handoffs` names an agent of the registry, and every agent is registered under its
 * own name (what a transfer's `to` and a run's log say): a typo fails when the registry is made,
 * not in the middle of a conversation. A cycle (a hands to b, b to a) is allowed.
 */
function checkHandoffs(factories: Readonly<Record<string, AgentFactory>>): void {
  const known = Object.keys(factories);
  for (const [key, factory] of Object.entries(factories)) {
    if (factory.agentName !== undefined && factory.agentName !== key) {
      throw new InvalidInputError(
        `agents: the agent named ${JSON.stringify(factory.agentName)} is registered as ${JSON.stringify(key)}; register it under its own name`,
        { field: `agents.${key}` },
      );
    }
    for (const target of factory.handoffs ?? []) {
      if (!Object.hasOwn(factories, target)) {
        throw new InvalidInputError(
          `agent ${JSON.stringify(key)}: handoffs names unknown agent ${JSON.stringify(target)}; known agents: ${known.join(", ")}`,
          { field: "handoffs" },
        );
      }
    }
  }
}
