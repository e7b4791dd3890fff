import * as agentsModule from "#agents";
import type { PriceTable } from "../lib/core/budget.ts";
import type { ModelProviders } from "../lib/ports/model.ts";
import { type AwsDeps, buildDeps as buildAwsDeps } from "../lib/runtime/aws/handlerDeps.ts";

/**
 * The agents module's `models`, if it exports any: looked up on the namespace at run time (not a
 * named import, which esbuild flags when the module has no such export), so a module that exports
 * only `agents` bundles and loads as before.
 */
const providers = Reflect.get(agentsModule, "models") as ModelProviders | undefined;
/** The agents module's `prices` (model prices by spec, for `maxCostUsd` limits), looked up the same way. */
const prices = Reflect.get(agentsModule, "prices") as PriceTable | undefined;

/**
 * Every dependency of a function, from the environment (lib/runtime/aws/handlerDeps.ts), serving
 * `#agents` and the model providers and prices it exports beside them.
 */
export function buildDeps(env: NodeJS.ProcessEnv): Promise<AwsDeps> {
  return buildAwsDeps(env, agentsModule.agents, providers, prices);
}

let built: Promise<AwsDeps> | undefined;

/** The deps of this Lambda instance, built on first use; a failed build is tried again on the next event. */
export function awsDeps(): Promise<AwsDeps> {
  built ??= buildDeps(process.env).catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
