import { z } from "zod";

/** The ids every task of an execution gets (see lib/workflow's Parameters). */
export const StepInputSchema = z.object({
  runId: z.string().min(1),
  generation: z.number().int().min(1),
});

/** The envelope EventBridge delivers, around a `detail` of the given shape. */
export function eventBridge<Type extends string, Detail extends z.ZodType>(detailType: Type, detail: Detail) {
  return z.object({
    id: z.string().min(1),
    "detail-type": z.literal(detailType),
    source: z.string(),
    detail,
  });
}

/**
 * `runlog.StartRun` (source `runlog`): start a run. Without a `runId` the
 * event's id becomes the run id, so EventBridge's at-least-once delivery and
 * Lambda's retries never start the same request twice.
 */
export const StartRunDetail = z.object({
  agent: z.string().min(1),
  input: z.string().min(1),
  model: z.string().min(1).optional(),
  runId: z.string().min(1).optional(),
});

/** `runlog.ResumeRun` (source `runlog`): resume a run, optionally with another model or a new message. */
export const ResumeRunDetail = z.object({
  runId: z.string().min(1),
  model: z.string().min(1).optional(),
  input: z.string().min(1).optional(),
});

/** What Step Functions emits when an execution ends; `input` is the execution's input as JSON text. */
export const ExecutionEndedDetail = z.object({
  executionArn: z.string(),
  status: z.enum(["FAILED", "TIMED_OUT", "ABORTED"]),
  input: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "expected the execution input as JSON text" });
        return z.NEVER;
      }
    })
    .pipe(StepInputSchema),
});

/** Keep only the optional fields that are present, for exactOptionalPropertyTypes targets. */
export function defined<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}
