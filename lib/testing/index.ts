/**
 * `runlog/testing`: test your own agents offline, against the same local
 * store and in-process state machine `runlog run` uses, with a scripted model
 * standing in for the real one.
 */
import "../requireNode.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseScript, type Script, type ScriptTurn } from "../adapters/scripted/script.ts";
import { type AgentFactory, derivedAgent } from "../agents/registry.ts";
import { type LocalOptions, type LocalRunlog, openLocal } from "../api/local.ts";
import { InvalidInputError } from "../core/errors.ts";
import type { RunEvent } from "../core/events.ts";
import type { AgentContext } from "../ports/tool.ts";
import { checkLocalOptions } from "../runtime/local/localOptions.ts";
import { processEnvWithoutRunlog } from "../runtime/readConfig.ts";

export { DEMO_SCRIPT } from "../adapters/scripted/demo.ts";
export { SCRIPTED_SPEC_PREFIX, scriptedCallId } from "../adapters/scripted/model.ts";
export {
  parseScript,
  SCRIPTED_ERRORS,
  type Script,
  type ScriptedError,
  ScriptSchema,
  type ScriptToolCall,
  type ScriptTurn,
} from "../adapters/scripted/script.ts";

export interface TestRunlogOptions extends Omit<LocalOptions, "agents" | "dataDir"> {
  /** Your agents, by name, as your functions serve them. */
  agents: Readonly<Record<string, AgentFactory>>;
  /**
   * The model's answers, one per turn (tool calls get ids `call_<turn>_<index>`, see scriptedCallId).
   * Given, every agent uses it unless a run names another model. @default each agent's own model
   */
  script?: Script | readonly ScriptTurn[];
  /** Where the store and the agents' files live. @default a new temporary directory, removed by close() */
  dataDir?: string;
  /**
   * The environment to read the configuration from (docs/reference/configuration.md).
   * @default this process's without its RUNLOG_* variables: a test's store is its own temporary
   * SQLite file whatever the shell says (a `runlog.env` of a deployed table sourced into it, a
   * fault injection), while a model provider's key and endpoint still reach the test
   */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface TestRunlog extends LocalRunlog {
  /** The model spec that plays `script` (`scripted:<file>`), if one was given. */
  model: string | undefined;
  /** Every event of a run, in order. */
  events(runId: string): Promise<RunEvent[]>;
}

/** Open runlog on a fresh local store for a test; `close()` it when done. */
export async function createTestRunlog(options: TestRunlogOptions): Promise<TestRunlog> {
  // Checked before a temporary directory is made: from JavaScript, nothing else stops a missing `agents`.
  checkLocalOptions(options);
  if (options.agents === undefined) {
    throw new InvalidInputError(
      "createTestRunlog: agents is required, the agents your functions serve ({ support: defineAgent(…) })",
      { field: "agents" },
    );
  }
  const { agents, script, dataDir: given, env = processEnvWithoutRunlog(), ...rest } = options;
  const dataDir = given ?? mkdtempSync(join(tmpdir(), "runlog-test-"));
  const cleanup = () => {
    if (given === undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const model = script === undefined ? undefined : writeScript(dataDir, script);
    const local = await openLocal({
      ...rest,
      env,
      dataDir,
      agents: model === undefined ? agents : withModel(agents, model),
    });
    return {
      ...local,
      model,
      events: (runId) => local.runlog.events(runId),
      close: async () => {
        try {
          await local.close();
        } finally {
          cleanup();
        }
      },
    };
  } catch (error) {
    cleanup();
    throw error;
  }
}

function writeScript(dataDir: string, script: Script | readonly ScriptTurn[]): string {
  const checked = parseScript(
    Array.isArray(script) ? { turns: script } : script,
    "given to createTestRunlog",
  );
  const path = join(dataDir, "script.json");
  writeFileSync(path, JSON.stringify(checked));
  return `scripted:${path}`;
}

function withModel(
  agents: Readonly<Record<string, AgentFactory>>,
  model: string,
): Readonly<Record<string, AgentFactory>> {
  return Object.fromEntries(
    Object.entries(agents).map(([name, factory]) => [
      name,
      // Keeps what the factory says of itself (its name, its handoffs), so the registry checks it.
      // The same definition to the registry: a sub-agent reaching the original is not a second agent.
      derivedAgent(
        Object.assign((context: AgentContext) => ({ ...factory(context), defaultModel: model }), {
          ...(factory.agentName === undefined ? {} : { agentName: factory.agentName }),
          ...(factory.handoffs === undefined ? {} : { handoffs: factory.handoffs }),
        }),
        factory,
      ),
    ]),
  );
}

export {
  type Difference,
  type DifferenceKind,
  REPLAY_TOOLS,
  type ReplayedRun,
  type ReplayFigures,
  type ReplayReport,
  type ReplayRequest,
  type ReplayTools,
  replayRuns,
} from "../api/replay.ts";
export {
  type ContractFixture,
  type ContractReply,
  type ContractTest,
  type ContractToolCall,
  describeModelContract,
  type ModelContractSubject,
  SETTLE_MS,
} from "./modelContract/index.ts";
export { expectReplaysUnchanged, ReplayChangedError } from "./replay.ts";
