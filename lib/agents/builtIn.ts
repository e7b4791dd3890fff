import { demoAgent } from "./demo.ts";
import type { AgentFactory } from "./registry.ts";

/**
 * The agents this build knows, by name: the default wherever no agents are given. Apart from
 * registry.ts, so that what only reads runs (lib/runtime/local/localReadDeps.ts) loads the demo
 * agent, and the zod its tools are declared with, only when it needs an agent's tools.
 */
export const BUILT_IN_AGENTS: Readonly<Record<string, AgentFactory>> = { demo: demoAgent };
