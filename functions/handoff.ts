import { z } from "zod";
import { handOff } from "../lib/steps/handoff.ts";
import { toWorkflowError } from "../lib/workflow/errors.ts";
import { awsDeps } from "./deps.ts";
import { parseEvent } from "./handler.ts";
import { StepInputSchema } from "./schemas.ts";

const Schema = StepInputSchema.extend({
  owner: z.string().min(1),
  /** The state machine running this execution (`$$.StateMachine.Id`): the next one is of the same. */
  stateMachineArn: z.string().startsWith("arn:"),
});

/** The Handoff task: continue a long run in a new execution of the next generation. */
export const handler = async (event: unknown) => {
  try {
    const { stateMachineArn, ...input } = parseEvent(Schema, event);
    return await handOff((await awsDeps()).controlFor(stateMachineArn), input);
  } catch (error) {
    throw toWorkflowError(error);
  }
};
