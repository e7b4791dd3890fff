import { type AgentFactory, derivedAgent } from "../agents/registry.ts";
import { canonicalValue } from "../core/canonicalJson.ts";
import { missingAnswer, type Recording, recordedKeyOf } from "../core/replayCalls.ts";
import type { Tool } from "../ports/tool.ts";
import { ToolErrorResult } from "../steps/executeTool.ts";

/** The recording each replay run answers its tool calls from, by the replay's run id. */
export interface Recordings {
  get(runId: string): { of: string; recording: Recording } | undefined;
}

/**
 * The agents with every tool answered from a recording instead of run (replayRuns with recorded
 * tools): a call whose name and arguments match a recorded call gets that call's result (each
 * recorded result once, in order), its text as recorded, an error's too; any other call fails with
 * an error saying why the recording cannot answer it (no such call, or the call with no result).
 * Nothing waits for approval: the recording holds what the decision came to. A sub-agent's call is
 * answered so too, its child run not started again. Each stands for the agent it wraps, so one
 * registered by name and reached as a sub-agent is still one agent. For a runtime that runs
 * replays only. The step path's twin is lib/steps/recordedAnswer.ts.
 */
export function recordedAgents(
  factories: Readonly<Record<string, AgentFactory>>,
  recordings: Recordings,
): Record<string, AgentFactory> {
  return Object.fromEntries(
    Object.entries(factories).map(([name, factory]) => [
      name,
      derivedAgent((context) => {
        const agent = factory(context);
        return { ...agent, tools: agent.tools.map((tool) => recordedTool(tool, recordings)) };
      }, factory),
    ]),
  );
}

function recordedTool(tool: Tool<unknown>, recordings: Recordings): Tool<unknown> {
  const keyOf = recordedKeyOf(tool.parameters);
  // Without `subagent`: RunTool would start a child run (whose tools would run) instead of asking `run`.
  const { subagent: _, ...plain } = tool;
  return {
    ...plain,
    needsApproval: () => false,
    async run(args, context) {
      const replay = recordings.get(context.runId);
      if (!replay)
        throw new Error(`run ${context.runId} is not a replay: it has no recording to answer from`);
      const key = canonicalValue(args);
      const recorded = replay.recording.take(tool.name, key, keyOf);
      if (!recorded)
        throw new Error(
          missingAnswer(replay.of, tool.name, key, replay.recording.withoutResult(tool.name, key, keyOf)),
        );
      if (!recorded.isError) return recorded.content;
      // The recorded error's text as it was, whoever wrote it (the tool, a rejection, an interruption):
      // a plain throw would be worded "<tool> failed: …" again.
      throw new ToolErrorResult(recorded.content);
    },
  };
}
