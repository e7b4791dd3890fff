import * as z from "zod";
import { finish } from "../lib/steps/finish.ts";
import { stepHandler } from "./handler.ts";
import { StepInputSchema } from "./schemas.ts";

/** The Finish task: record the status the run rests in and release this execution's lease. */
export const handler = stepHandler("finish", StepInputSchema.extend({ owner: z.string().min(1) }), finish);
