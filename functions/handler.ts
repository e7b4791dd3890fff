import type { z } from "zod";
import { InvalidInputError } from "../lib/core/errors.ts";
import type { Ids } from "../lib/ports/runtime.ts";
import type { ControlDeps, StepDeps } from "../lib/steps/deps.ts";
import { toWorkflowError } from "../lib/workflow/errors.ts";
import { awsDeps } from "./deps.ts";

type Handler<O> = (event: unknown) => Promise<O>;

/** Parse an event, naming each field that does not fit. */
export function parseEvent<S extends z.ZodType>(schema: S, event: unknown): z.output<S> {
  const parsed = schema.safeParse(event);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "event";
    return `${where}: ${issue.message}`;
  });
  throw new InvalidInputError(`invalid input: ${problems.join("; ")}`);
}

/**
 * Every handler is this: parse, get the instance's deps, call lib/steps, and
 * report failures under their category name so Step Functions' Retry and
 * Catch (and Lambda's own retries) can tell them apart.
 */
function handler<S extends z.ZodType, D, O>(
  schema: S,
  pick: () => Promise<D>,
  run: (deps: D, input: z.output<S>) => Promise<O>,
): Handler<O> {
  return async (event) => {
    try {
      const input = parseEvent(schema, event);
      return await run(await pick(), input);
    } catch (error) {
      throw toWorkflowError(error);
    }
  };
}

/** A state machine task: a step inside an execution. */
export function stepHandler<S extends z.ZodType, O>(
  schema: S,
  run: (deps: StepDeps, input: z.output<S>) => Promise<O>,
): Handler<O> {
  return handler(schema, async () => (await awsDeps()).steps, run);
}

/** An operation that starts executions: start, resume, sweep. */
export function controlHandler<S extends z.ZodType, O>(
  schema: S,
  run: (deps: ControlDeps & { ids: Ids }, input: z.output<S>) => Promise<O>,
): Handler<O> {
  return handler(schema, async () => (await awsDeps()).control(), run);
}
