import { NotFoundError } from "../core/errors.ts";
import { NAMES } from "../runtime/config.ts";

/** What the command line said about agents: whether --agent was typed, and the module served. */
export interface AgentsGiven {
  command: string;
  /** The flags typed (givenFlags). */
  flags: readonly string[];
  /** The agents module served (--agents, or the agents variable), if any. */
  module?: string;
}

/**
 * An unknown agent, said with the flag that fixes it: the registry names the agent and those it
 * knows, but not that `run`'s --agent defaults to demo, nor that a run of the user's own agent is
 * served only with --agents. A NotFoundError about no run (the registry's) is the unknown agent.
 */
export function withAgentsHint(error: unknown, given: AgentsGiven): unknown {
  if (!(error instanceof NotFoundError) || error.runId !== undefined) return error;
  const agent = /^unknown agent "([^"]*)"/.exec(error.message)?.[1];
  if (agent === undefined) return error;
  const hint =
    given.command === "run" && !given.flags.includes("--agent")
      ? `--agent defaults to ${agent}: pass --agent NAME, one of those`
      : given.module === undefined
        ? `an agent of your own is served with --agents MODULE (or ${NAMES.agents}): pass the module that exports it`
        : `${given.module} (--agents or ${NAMES.agents}) does not export it`;
  return new NotFoundError(`${error.message}; ${hint}`, { cause: error });
}
