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

/**
 * Split a point's interrupted calls by what resume will do with them, `idempotent` telling which
 * tools may run again (a tool the agent does not have is answered, not run: never re-run).
 */
export function planResume(point: ResumePoint, idempotent: (toolName: string) => boolean): ResumePlan {
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
