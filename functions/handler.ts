import type { z } from "zod";
import { watchForCancel } from "../lib/adapters/cancelWatch.ts";
import { InvalidInputError } from "../lib/core/errors.ts";
import type { Ids } from "../lib/ports/runtime.ts";
import type { ControlDeps, StepDeps, StepInput } from "../lib/steps/deps.ts";
import { toWorkflowError } from "../lib/workflow/errors.ts";
import { type AwsDeps, awsDeps } from "./deps.ts";

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

/**
 * A state machine task that may run for minutes (CallModel, RunTool): while it runs, the run's
 * log is watched for a cancel, and one aborts the step's signal, as the local orchestrator does.
 * Step Functions' StopExecution does not stop a Lambda under way; this is what does. A step
 * stopped so fails with the reason for the stop (a cancel ends the execution as superseded).
 */
export function watchedStepHandler<S extends z.ZodType<StepInput>, O>(
  schema: S,
  run: (deps: StepDeps, input: z.output<S>) => Promise<O>,
): Handler<O> {
  return handler(schema, awsDeps, (aws, input) => runWatched(aws, input, (deps) => run(deps, input)));
}

async function runWatched<O>(
  aws: AwsDeps,
  { runId }: StepInput,
  run: (deps: StepDeps) => Promise<O>,
): Promise<O> {
  const controller = new AbortController();
  const stopWatching = watchForCancel({
    runId,
    lastEvent: async () => (await aws.steps.store.readBack(runId, () => true)).at(-1),
    controller,
    ...aws.cancelWatch,
  });
  try {
    return await run({ ...aws.steps, signal: controller.signal });
  } catch (error) {
    // Whatever the aborted model call or tool threw, the stop is why the step ended.
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    stopWatching();
  }
}

/** An operation that starts executions: start, resume, sweep. */
export function controlHandler<S extends z.ZodType, O>(
  schema: S,
  run: (deps: ControlDeps & { ids: Ids }, input: z.output<S>) => Promise<O>,
): Handler<O> {
  return handler(schema, async () => (await awsDeps()).control(), run);
}
