import type { z } from "zod";
import { type BenignReason, benignReason, InvalidInputError } from "../lib/core/errors.ts";
import { WITHOUT_JIT } from "../lib/core/withoutJit.ts";
import type { Ids } from "../lib/ports/runtime.ts";
import type { AwsDeps } from "../lib/runtime/aws/handlerDeps.ts";
import { watchForCancel } from "../lib/runtime/cancelWatch.ts";
import type { ControlDeps, StepDeps, StepInput } from "../lib/steps/deps.ts";
import { toWorkflowError } from "../lib/workflow/errors.ts";
import { withChildren } from "./children.ts";
import { awsDeps } from "./deps.ts";
import { type LambdaContext, observed } from "./observability/invocation.ts";

type Handler<O> = (event: unknown, context?: LambdaContext) => Promise<O>;
/** What a line of an invocation's log says it is about. */
type RunKeys = { runId?: string | undefined; generation?: number | undefined; callId?: string | undefined };

/** Where an issue is: its path, with an unknown key's name (`detail.owner`), or `event`. */
const whereOf = (issue: z.core.$ZodIssue) => {
  const path = [...issue.path, ...(issue.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : [])];
  return path.length > 0 ? path.join(".") : "event";
};

/** Parse an event, naming each field that does not fit; `field` is the first, as the HTTP API's 400 names it. */
export function parseEvent<S extends z.ZodType>(schema: S, event: unknown): z.output<S> {
  const parsed = schema.safeParse(event, WITHOUT_JIT);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${whereOf(issue)}: ${issue.message}`);
  const first = parsed.error.issues[0];
  throw new InvalidInputError(`invalid input: ${problems.join("; ")}`, {
    ...(first === undefined ? {} : { field: whereOf(first) }),
  });
}

/** How one handler is made: its name, its input, its deps and what it runs. */
export interface HandlerSpec<S extends z.ZodType, D extends StepDeps, O> {
  /** The handler's name (cdk/'s HandlerName): the `step` of its logs, metrics and trace. */
  step: string;
  schema: S;
  deps: (aws: AwsDeps, input: z.output<S>) => D;
  run: (deps: D, input: z.output<S>) => Promise<O>;
  /** The run an input is about. @default its runId, generation and callId */
  keys?: (input: z.output<S>) => RunKeys;
  /**
   * The answer to a benign conflict (benignReason, lib/core/errors.ts); undefined, or no `answer`,
   * throws the error (a conflict that is benign for one input may not be for another).
   */
  answer?: (input: z.output<S>, reason: BenignReason, error: unknown) => O | undefined;
}

const inputKeys = (input: unknown): RunKeys => {
  const { runId, generation, callId } = (typeof input === "object" && input !== null ? input : {}) as RunKeys;
  return { runId, generation, callId };
};

/**
 * Every handler is this: parse, get the instance's deps, call lib/steps, observed (logs, metrics,
 * a trace subsegment: functions/observability/), and report failures under their category name so
 * Step Functions' Retry and Catch (and Lambda's own retries) can tell them apart.
 */
export function observedHandler<S extends z.ZodType, D extends StepDeps, O>(
  spec: HandlerSpec<S, D, O>,
): Handler<O> {
  const keys = spec.keys ?? inputKeys;
  return async (event, context) => {
    let input: { parsed: z.output<S> } | undefined;
    const answer = (error: unknown) => {
      const reason = benignReason(error);
      return reason && input && spec.answer ? spec.answer(input.parsed, reason, error) : undefined;
    };
    try {
      return await observed(
        spec.step,
        context,
        async ({ identify, observer }) => {
          const parsed = parseEvent(spec.schema, event);
          input = { parsed };
          identify(keys(parsed));
          const aws = await awsDeps();
          // Cached for minutes: this reads Secrets Manager only when the key in hand is old.
          await aws.refreshModelKey();
          return spec.run({ ...spec.deps(aws, parsed), observer }, parsed);
        },
        answer,
      );
    } catch (error) {
      throw toWorkflowError(error);
    }
  };
}

/** A state machine task: a step inside an execution. */
export function stepHandler<S extends z.ZodType, O>(
  step: string,
  schema: S,
  run: (deps: StepDeps, input: z.output<S>) => Promise<O>,
): Handler<O> {
  return observedHandler({ step, schema, deps: (aws) => aws.steps, run });
}

/**
 * A state machine task that may run for minutes (CallModel, RunTool): while it runs, the run's
 * log is watched for a cancel, and one aborts the step's signal, as the local orchestrator does.
 * Step Functions' StopExecution does not stop a Lambda under way; this is what does. A step
 * stopped so fails with the reason for the stop (a cancel ends the execution as superseded).
 */
export function watchedStepHandler<S extends z.ZodType<StepInput>, O>(
  step: string,
  schema: S,
  run: (deps: StepDeps, input: z.output<S>) => Promise<O>,
): Handler<O> {
  return observedHandler({
    step,
    schema,
    deps: (aws, input) => ({ ...withChildren(aws, arnOf(input)), cancelWatch: aws.cancelWatch }),
    run: (deps, input) => runWatched(deps, input, (watched) => run(watched, input)),
  });
}

/** The state machine a task input names (RunTool's), if any. */
const arnOf = (input: unknown): string | undefined => {
  const arn = (input as { stateMachineArn?: unknown }).stateMachineArn;
  return typeof arn === "string" ? arn : undefined;
};

async function runWatched<O>(
  deps: StepDeps & { cancelWatch: AwsDeps["cancelWatch"] },
  { runId }: StepInput,
  run: (deps: StepDeps) => Promise<O>,
): Promise<O> {
  const { cancelWatch, ...steps } = deps;
  const controller = new AbortController();
  const stopWatching = watchForCancel({
    runId,
    lastEvent: async () => (await steps.store.readBack(runId, () => true)).at(-1),
    controller,
    ...cancelWatch,
  });
  try {
    return await run({ ...steps, signal: controller.signal });
  } catch (error) {
    // Whatever the aborted model call or tool threw, the stop is why the step ended.
    throw controller.signal.aborted ? controller.signal.reason : error;
  } finally {
    stopWatching();
  }
}

/** An operation that starts executions: start, resume, sweep. `answer` answers benign conflicts. */
export function controlHandler<S extends z.ZodType, O>(
  step: string,
  schema: S,
  run: (deps: ControlDeps & { ids: Ids }, input: z.output<S>) => Promise<O>,
  options: Pick<HandlerSpec<S, ControlDeps & { ids: Ids }, O>, "keys" | "answer"> = {},
): Handler<O> {
  return observedHandler({ step, schema, deps: (aws) => aws.control(), run, ...options });
}
