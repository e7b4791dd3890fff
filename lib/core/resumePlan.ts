import type { ResumePoint } from "./classify.ts";
import type { ToolCall } from "./eventFields.ts";

/**
 * A resume point as resume will carry it out: of the calls that started and have no result, those
 * of an idempotent tool run again (lib/steps/runTool.ts re-runs them) and only the others are
 * answered as interrupted.
 */
export interface ResumePlan extends ResumePoint {
  /** Calls that started and have no result whose tool is idempotent: resume runs them again. */
  rerunToolCalls: ToolCall[];
}

const names = (calls: readonly ToolCall[]) => calls.map((call) => `${call.name} (${call.id})`).join(", ");

/** What a plan needs of a tool: its name, and whether it may run again. */
export interface PlannedTool {
  name: string;
  idempotent?: boolean;
}

/**
 * Split a point's interrupted calls by what resume will do with them: those of a tool among `tools`
 * (the agent's that asked for them) that is idempotent run again; any other is answered, never
 * re-run (a tool the agent does not have included).
 */
export function planResume(point: ResumePoint, tools: readonly PlannedTool[]): ResumePlan {
  const idempotent = (name: string) => tools.find((tool) => tool.name === name)?.idempotent === true;
  const rerun = point.interruptedToolCalls.filter((call) => idempotent(call.name));
  if (rerun.length === 0) return { ...point, rerunToolCalls: [] };
  const interrupted = point.interruptedToolCalls.filter((call) => !idempotent(call.name));
  const steps = [
    `run ${names(rerun)} again (the tool is idempotent)`,
    ...(interrupted.length > 0 ? [`answer ${names(interrupted)} as interrupted`] : []),
  ];
  return {
    ...point,
    description: `tool calls started and have no result: ${steps.join("; ")}, then continue`,
    interruptedToolCalls: interrupted,
    rerunToolCalls: rerun,
  };
}
