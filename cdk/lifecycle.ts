import { Duration } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import type { IEventBus } from "aws-cdk-lib/aws-events";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { FilterCriteria, FilterRule, type IFunction, StartingPosition } from "aws-cdk-lib/aws-lambda";
import { DynamoEventSource, SqsDlq } from "aws-cdk-lib/aws-lambda-event-sources";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";

/** How often Lambda tries a failing batch of stream records (halving it each time) before it gives it to the dead-letter queue. */
export const PUBLISH_RETRY_ATTEMPTS = 10;

/** What the publisher reads: the events its stream records name, through the store (no writes, no indexes). */
export const LOG_READ_ACTIONS = ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"];

export interface LifecyclePublishingProps {
  /** The run log; its stream (any view type: the publisher reads the keys) feeds the publisher. */
  table: ITable;
  /** The publishLifecycle function. */
  publisher: IFunction;
  /** The deployment's own bus: the only one the publisher may put events on. */
  bus: IEventBus;
}

/**
 * Every run's lifecycle, published from its log: the table's stream invokes the publisher
 * (functions/publishLifecycle.ts), which reads the events the records name and puts what they
 * imply on the deployment's own bus. One batch at a time per shard (a run's records stay in
 * order), a partial batch response and bisection on error (what failed is sent again from there,
 * so at least once), and a dead-letter queue for what still fails after PUBLISH_RETRY_ATTEMPTS:
 * the records' keys, to publish again by hand (docs/runbooks/lifecycle-dead-letters.md).
 */
export class LifecyclePublishing extends Construct {
  /** Stream batches the publisher could not publish after its retries (their keys and positions). */
  readonly deadLetters: Queue;

  constructor(scope: Construct, id: string, props: LifecyclePublishingProps) {
    super(scope, id);
    this.deadLetters = new Queue(this, "DeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    props.publisher.addEventSource(
      new DynamoEventSource(props.table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        // One batch per shard at a time: a run's records are published in the order written.
        parallelizationFactor: 1,
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: PUBLISH_RETRY_ATTEMPTS,
        // A stream keeps records 24 hours: past that they would be lost, not late.
        maxRecordAge: Duration.hours(23),
        onFailure: new SqsDlq(this.deadLetters),
        // New items only: a head's update, a lease, a TTL deletion implies nothing.
        filters: [FilterCriteria.filter({ eventName: FilterRule.isEqual("INSERT") })],
      }),
    );
    props.publisher.addToRolePolicy(
      new PolicyStatement({ actions: LOG_READ_ACTIONS, resources: [props.table.tableArn] }),
    );
    // events:PutEvents on this deployment's bus, and no other.
    props.bus.grantPutEventsTo(props.publisher);
  }
}
