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

/** The definition a factory made by wrapping another stands for (derivedAgent). */
const originals = new WeakMap<object, object>();

/**
 * Say that `wrapper` makes the agent `original` makes, changed (another default model …): the
 * registry counts them as one definition, so the same agent reached registered and as a sub-agent
 * is not taken for two agents with one name.
 */
export function derivedAgent<F extends AgentFactory>(wrapper: F, original: AgentFactory): F {
  originals.set(wrapper, definitionOf(original));
  Object.defineProperty(wrapper, "name", { value: original.name });
  return wrapper;
}

function definitionOf(factory: (context: AgentContext) => Agent): object {
  return originals.get(factory) ?? factory;
}

/** The agents defineAgent was given as `handoffs` (not by name), by the name each gives. */
const handoffAgents = new WeakMap<object, ReadonlyMap<string, AgentFactory>>();

/** Record the agents `factory`'s `handoffs` gave as definitions, so the registry checks it has those very ones. */
export function handingOffTo<F extends AgentFactory>(
  factory: F,
  targets: ReadonlyMap<string, AgentFactory>,
): F {
  if (targets.size > 0) handoffAgents.set(factory, targets);
  return factory;
}

/**
 * A registry over named factories, and every agent they reach as sub-agents (agentAsTool), however
 * deep; an unknown name is a NotFoundError listing the known ones. Every agent is made once, now:
 * two different definitions under one name (registered, or as sub-agents) are an InvalidInputError
 * naming where each is, since a run names its agent only by name and would run whichever came first.
 */
export function agentRegistry(
  context: AgentContext,
  factories: Readonly<Record<string, AgentFactory>>,
): AgentRegistry {
  checkFactories(factories);
  checkOwnNames(factories);
  /** Where each name's definition was found first: registered, or as whose sub-agent. */
  const where = new Map<string, { factory: (context: AgentContext) => Agent; place: string }>();
  const agents = new Map<string, Agent>();
  for (const [key, factory] of Object.entries(factories)) {
    where.set(key, { factory, place: `the agent registered as ${JSON.stringify(key)}` });
  }
  const make = (name: string, factory: (context: AgentContext) => Agent): void => {
    const agent = factory(context);
    agents.set(name, agent);
    for (const tool of agent.tools) {
      if (tool.subagent === undefined) continue;
      const { agent: child, make: childFactory } = tool.subagent;
      const place = `the sub-agent of ${JSON.stringify(name)} through its tool ${JSON.stringify(tool.name)}`;
      const known = where.get(child);
      if (known === undefined) {
        where.set(child, { factory: childFactory, place });
        make(child, childFactory);
      } else if (definitionOf(known.factory) !== definitionOf(childFactory)) {
        throw new InvalidInputError(
          `agents: two different agents are named ${JSON.stringify(child)}: ${known.place}, and ${place}; give each its own name, or use one definition for both`,
          { field: `agents.${child}` },
        );
      }
    }
  };
  for (const [key, factory] of Object.entries(factories)) make(key, factory);
  checkHandoffs(agents, where);
  const known = [...agents.keys()].join(", ");
  return (name) => {
    const agent = agents.get(name);
    if (agent === undefined)
      throw new NotFoundError(`unknown agent ${JSON.stringify(name)}; known agents: ${known}`);
    return agent;
  };
}

/** Every agent is registered under its own name: what a transfer's `to` and a run's log say. */
function checkOwnNames(factories: Readonly<Record<string, AgentFactory>>): void {
  for (const [key, factory] of Object.entries(factories)) {
    if (factory.agentName !== undefined && factory.agentName !== key) {
      throw new InvalidInputError(
        `agents: the agent named ${JSON.stringify(factory.agentName)} is registered as ${JSON.stringify(key)}; register it under its own name`,
        { field: `agents.${key}` },
      );
    }
  }
}

/**
 * Every agent's `handoffs` (a registered agent's, and a sub-agent's) names an agent of the
 * registry, registered or reached as a sub-agent as `start` finds it (the very one, when it was
 * given as a definition): a typo fails when the registry is made, not in the middle of a
 * conversation. A cycle (a hands to b, b to a) is allowed.
 */
function checkHandoffs(
  agents: ReadonlyMap<string, Agent>,
  where: ReadonlyMap<string, { factory: (context: AgentContext) => Agent }>,
): void {
  for (const [name, agent] of agents) {
    for (const target of agent.handoffs ?? []) {
      if (!agents.has(target)) {
        throw new InvalidInputError(
          `agent ${JSON.stringify(name)}: handoffs names unknown agent ${JSON.stringify(target)}; known agents: ${[...agents.keys()].join(", ")}`,
          { field: "handoffs" },
        );
      }
    }
    const factory = where.get(name)!.factory;
    for (const [target, given] of handoffAgents.get(definitionOf(factory)) ?? []) {
      const found = where.get(target);
      if (found !== undefined && definitionOf(found.factory) !== definitionOf(given)) {
        throw new InvalidInputError(
          `agent ${JSON.stringify(name)}: handoffs gives an agent named ${JSON.stringify(target)} that is not the agent the registry has as ${JSON.stringify(target)}; two different agents are named ${JSON.stringify(target)}`,
          { field: "handoffs" },
        );
      }
    }
  }
}

/** An object of agents by name, each a factory (defineAgent): else an InvalidInputError naming the entry. */
function checkFactories(factories: unknown): void {
  if (typeof factories !== "object" || factories === null || Array.isArray(factories)) {
    throw new InvalidInputError("agents must be an object of agents by name ({ support: defineAgent(…) })", {
      field: "agents",
    });
  }
  for (const [key, factory] of Object.entries(factories)) {
    if (typeof factory !== "function") {
      throw new InvalidInputError(
        `agents.${key} is not an agent: make it with defineAgent(...), got ${factory === null ? "null" : `a ${typeof factory}`}`,
        { field: `agents.${key}` },
      );
    }
  }
}
