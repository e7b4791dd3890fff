import * as z from "zod";
import { recordModelFailure } from "../lib/steps/recordModelFailure.ts";
import { stepHandler } from "./handler.ts";
import { defined, StepInputSchema } from "./stepInput.ts";

/** The error a Catch hands over: `Error` is the category, `Cause` the original "Name: message". */
const Schema = StepInputSchema.extend({
  error: z.object({ Error: z.string(), Cause: z.string().optional() }),
});

/** The RecordModelFailure task: CallModel's retries are spent. */
export const handler = stepHandler("recordModelFailure", Schema, (deps, { error, ...ids }) =>
  recordModelFailure(deps, { ...ids, error: { Error: error.Error, ...defined({ Cause: error.Cause }) } }),
);
