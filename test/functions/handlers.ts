import { handler as api } from "../../functions/api.ts";
import { handler as callModel } from "../../functions/callModel.ts";
import { handler as finish } from "../../functions/finish.ts";
import { handler as handoff } from "../../functions/handoff.ts";
import { handler as publishLifecycle } from "../../functions/publishLifecycle.ts";
import { handler as recordModelFailure } from "../../functions/recordModelFailure.ts";
import { handler as redriveDeadLetters } from "../../functions/redriveDeadLetters.ts";
import { handler as resume } from "../../functions/resume.ts";
import { handler as runTool } from "../../functions/runTool.ts";
import { handler as startRun } from "../../functions/startRun.ts";
import { handler as steerRun } from "../../functions/steerRun.ts";
import { handler as sweeper } from "../../functions/sweeper.ts";
import { asFunction } from "../support/iam/recorder.ts";

/**
 * The functions' handlers as the tests call them: each one's AWS calls recorded as its own, so
 * test/reliability/permissions.test.ts can check them against that function's IAM role.
 */
export const handlers = {
  api: asFunction("api", api),
  callModel: asFunction("callModel", callModel),
  finish: asFunction("finish", finish),
  handoff: asFunction("handoff", handoff),
  recordModelFailure: asFunction("recordModelFailure", recordModelFailure),
  redriveDeadLetters: asFunction("redriveDeadLetters", redriveDeadLetters),
  publishLifecycle: asFunction("publishLifecycle", publishLifecycle),
  resume: asFunction("resume", resume),
  runTool: asFunction("runTool", runTool),
  startRun: asFunction("startRun", startRun),
  steerRun: asFunction("steerRun", steerRun),
  sweeper: asFunction("sweeper", sweeper),
};
