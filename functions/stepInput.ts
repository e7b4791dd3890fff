import * as z from "zod";

/*
 * What every step function's task gets, apart from the schemas of the events that start or steer
 * a run (functions/schemas.ts): a step's import then builds no HTTP body schema it never uses.
 */

/** The ids every task of an execution gets (see lib/workflow's Parameters). */
export const StepInputSchema = z.object({
  runId: z.string().min(1),
  generation: z.number().int().min(1),
});

/** Keep only the optional fields that are present, for exactOptionalPropertyTypes targets. */
export function defined<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}
