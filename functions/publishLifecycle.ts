import { publisherDeps } from "../lib/runtime/aws/publisherDeps.ts";
import { committedKeys, StreamEvent } from "../lib/runtime/aws/streamKeys.ts";
import { type PublishDeps, publishLifecycle } from "../lib/steps/publishLifecycle.ts";
import { parseEvent } from "./handler.ts";
import { type LambdaContext, observed } from "./observability/invocation.ts";

/**
 * Publishes each run's lifecycle events from the table's stream (cdk/lifecycle.ts): reads back
 * the events the records name and puts what they imply on the deployment's bus. A batch that
 * fails part way answers with the record to go on from (ReportBatchItemFailures), so Lambda sends
 * it and the rest again, in order: at least once, never out of order within a run.
 */
export function lifecycleHandler(make: () => PublishDeps) {
  let deps: PublishDeps | undefined;
  return (event: unknown, context?: LambdaContext) =>
    observed("publishLifecycle", context, async ({ log }) => {
      const keys = committedKeys(parseEvent(StreamEvent, event));
      deps ??= make();
      const result = await publishLifecycle(deps, keys);
      if (result.failedFrom === undefined) return { batchItemFailures: [] };
      log.warn("lifecycle publishing stopped; the batch goes on from this record", {
        record: result.failedFrom,
        error: result.error,
      });
      return { batchItemFailures: [{ itemIdentifier: result.failedFrom }] };
    });
}

export const handler = lifecycleHandler(() => publisherDeps(process.env));
