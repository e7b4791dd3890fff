import { canonicalValue } from "../core/canonicalJson.ts";
import { type Recording, recordedKeyOf } from "../core/replay.ts";
import type { Tool } from "../ports/tool.ts";
import type { AgentFactory } from "./registry.ts";

/** The recording each replay run answers its tool calls from, by the replay's run id. */
export interface Recordings {
  get(runId: string): { of: string; recording: Recording } | undefined;
}

/**
 * The agents with every tool answered from a recording instead of run: a call whose name and
 * arguments match a recorded call gets that call's result (each recorded result once, in order);
 * any other call fails with an error saying the recording has no such call. Nothing waits for
 * approval: the recording holds what the decision came to. For a runtime that runs replays only.
 */
export function recordedAgents(
  factories: Readonly<Record<string, AgentFactory>>,
  recordings: Recordings,
): Record<string, AgentFactory> {
  return Object.fromEntries(
    Object.entries(factories).map(([name, factory]) => [
      name,
      (context) => {
        const agent = factory(context);
        return { ...agent, tools: agent.tools.map((tool) => recordedTool(tool, recordings)) };
      },
    ]),
  );
}

function recordedTool(tool: Tool<unknown>, recordings: Recordings): Tool<unknown> {
  const keyOf = recordedKeyOf(tool.parameters);
  return {
    ...tool,
    needsApproval: () => false,
    async run(args, context) {
      const replay = recordings.get(context.runId);
      if (!replay)
        throw new Error(`run ${context.runId} is not a replay: it has no recording to answer from`);
      const key = canonicalValue(args);
      const recorded = replay.recording.take(tool.name, key, keyOf);
      if (!recorded)
        throw new Error(
          `the recording of run ${replay.of} has no call of ${tool.name} with these arguments (${key}) left to answer it`,
        );
      if (!recorded.isError) return recorded.content;
      // runWithTimeout words a throw as "<tool> failed: <message>": the recorded text, as it was.
      const prefix = `${tool.name} failed: `;
      throw new Error(
        recorded.content.startsWith(prefix) ? recorded.content.slice(prefix.length) : recorded.content,
      );
    },
  };
}
