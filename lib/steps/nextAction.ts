import { assertNever } from "../core/assertNever.ts";
import type { Classification } from "../core/classify.ts";
import type { NextAction } from "../ports/runtime.ts";

/**
 * What an execution does next, from the classification of its log. A response
 * that was cut off or hit the output limit ends the execution: the run rests
 * as `interrupted` and a resume continues it, so one bad response cannot loop.
 */
export function nextAction(classification: Classification, atStart: boolean): NextAction {
  if (!classification.resumable) return { action: "done" };
  switch (classification.kind) {
    case "run_tools":
    case "recover_tools":
      // The tool names too: a deployment with tool groups routes each call by its tool's name.
      return {
        action: "tools",
        callIds: classification.unansweredToolCalls.map((call) => call.id),
        tools: classification.unansweredToolCalls.map((call) => call.name),
      };
    case "call_model":
    // Saved text of a response the process died streaming: continuing it is the call that was cut.
    case "continue_partial":
      return { action: "model" };
    case "retry_response":
    case "continue_response":
      return atStart ? { action: "model" } : { action: "done" };
    default:
      return assertNever(classification.kind);
  }
}
