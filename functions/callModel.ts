import { callModel } from "../lib/steps/callModel.ts";
import { watchedStepHandler } from "./handler.ts";
import { StepInputSchema } from "./stepInput.ts";

/** The CallModel task of the run state machine. */
export const handler = watchedStepHandler("callModel", StepInputSchema, callModel);
