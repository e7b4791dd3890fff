import { z } from "zod";
import { BLOB_PREFIX } from "../lib/adapters/dynamodb/blobs.ts";
import { publisherDeps } from "../lib/runtime/aws/publisherDeps.ts";
import { type CommittedKey, type PublishDeps, publishLifecycle } from "../lib/steps/publishLifecycle.ts";
import { parseEvent } from "./handler.ts";
import { type LambdaContext, observed } from "./observability/invocation.ts";

/** The part of a DynamoDB stream record the publisher reads: which item was written, and the record's id. */
const StreamRecord = z.object({
  eventName: z.enum(["INSERT", "MODIFY", "REMOVE"]),
  dynamodb: z.object({
    Keys: z.object({ runId: z.object({ S: z.string().min(1) }), seq: z.object({ N: z.string() }) }),
    SequenceNumber: z.string().min(1),
  }),
});
export const StreamEvent = z.object({ Records: z.array(StreamRecord) });

/** The stream records that are a run's new events (not heads at seq 0, big payloads' chunks, or updates). */
export function committedKeys(event: z.output<typeof StreamEvent>): CommittedKey[] {
  return event.Records.flatMap((record) => {
    const runId = record.dynamodb.Keys.runId.S;
    const seq = Number(record.dynamodb.Keys.seq.N);
    if (record.eventName !== "INSERT" || runId.startsWith(BLOB_PREFIX) || !(seq >= 1)) return [];
    return [{ recordId: record.dynamodb.SequenceNumber, runId, seq }];
  });
}

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
