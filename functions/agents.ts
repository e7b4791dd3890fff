import { BUILT_IN_AGENTS } from "../lib/agents/builtIn.ts";

/**
 * The agents the deployed functions serve, imported as `#agents`. A stack
 * deploying the user's own agents points that name at their module instead
 * (an esbuild alias, see cdk/), which must export `agents` of the same type.
 */
export const agents = BUILT_IN_AGENTS;
