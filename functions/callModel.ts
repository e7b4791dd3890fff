import { callModel } from "../lib/steps/callModel.ts";
import { stepHandler } from "./handler.ts";
import { StepInputSchema } from "./schemas.ts";

/** The CallModel task of the run state machine. */
export const handler = stepHandler(StepInputSchema, callModel);
