import * as z from "zod";
import { runTool } from "../lib/steps/runTool.ts";
import { watchedStepHandler } from "./handler.ts";
import { StepInputSchema } from "./stepInput.ts";

/** The RunTool task: one tool call of the open batch (a Map iteration). */
export const handler = watchedStepHandler(
  "runTool",
  StepInputSchema.extend({
    callId: z.string().min(1),
    /** The Map's list of the batch's calls: this one writes in its place in it (lib/steps/toolTurns.ts). */
    batch: z.array(z.string().min(1)).max(1_000).optional(),
    /** The state machine running this execution (`$$.StateMachine.Id`): a sub-agent call starts its child on it. */
    stateMachineArn: z.string().startsWith("arn:").optional(),
  }),
  runTool,
);
