import { agents } from "#agents";
import { type AwsDeps, buildDeps as buildAwsDeps } from "../lib/runtime/aws/handlerDeps.ts";

/** Every dependency of a function, from the environment (lib/runtime/aws/handlerDeps.ts), serving `#agents`. */
export function buildDeps(env: NodeJS.ProcessEnv): Promise<AwsDeps> {
  return buildAwsDeps(env, agents);
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
