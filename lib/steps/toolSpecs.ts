import { z } from "zod";
import type { ToolSpec } from "../ports/model.ts";
import type { Agent } from "../ports/tool.ts";

const cache = new WeakMap<Agent, ToolSpec[]>();

/** The agent's tools as the model sees them: name, description and JSON Schema of the arguments. */
export function toolSpecs(agent: Agent): ToolSpec[] {
  const known = cache.get(agent);
  if (known) return known;
  const specs = agent.tools.map((tool) => {
    const { $schema: _, ...parameters } = z.toJSONSchema(tool.parameters, { io: "input" }) as Record<
      string,
      unknown
    >;
    return { name: tool.name, description: tool.description, parameters };
  });
  cache.set(agent, specs);
  return specs;
}
