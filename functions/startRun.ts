import { startRun } from "../lib/steps/start.ts";
import { controlHandler } from "./handler.ts";
import { defined, eventBridge, StartRunDetail } from "./schemas.ts";

/** Starts a run from a `runlog.StartRun` EventBridge event (see cdk/ for the rule and the event's shape). */
export const handler = controlHandler(eventBridge("runlog.StartRun", StartRunDetail), (deps, event) => {
  const { agent, input, model, runId } = event.detail;
  return startRun(deps, { agent, input, runId: runId ?? `evt-${event.id}`, ...defined({ model }) });
});
