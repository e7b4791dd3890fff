import * as z from "zod";
import { finish } from "../lib/steps/finish.ts";
import { withChildren } from "./children.ts";
import { observedHandler } from "./handler.ts";
import { StepInputSchema } from "./stepInput.ts";

const Schema = StepInputSchema.extend({
  owner: z.string().min(1),
  /** The state machine running this execution (`$$.StateMachine.Id`): a child's end resumes its parent on it. */
  stateMachineArn: z.string().startsWith("arn:").optional(),
});

export const handler = observedHandler({
  step: "finish",
  schema: Schema,
  deps: (aws, { stateMachineArn }) => withChildren(aws, stateMachineArn),
  run: (deps, { stateMachineArn: _, ...input }) => finish(deps, input),
});
