import * as z from "zod";
import { handOff } from "../lib/steps/handoff.ts";
import { observedHandler } from "./handler.ts";
import { StepInputSchema } from "./stepInput.ts";

const Schema = StepInputSchema.extend({
  owner: z.string().min(1),
  /** The state machine running this execution (`$$.StateMachine.Id`): the next one is of the same. */
  stateMachineArn: z.string().startsWith("arn:"),
});

/** The Handoff task: continue a long run in a new execution of the next generation. */
export const handler = observedHandler({
  step: "handoff",
  schema: Schema,
  deps: (aws, { stateMachineArn }) => aws.controlFor(stateMachineArn),
  run: (deps, { stateMachineArn: _, ...input }) => handOff(deps, input),
});
