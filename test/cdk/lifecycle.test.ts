import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { LOG_READ_ACTIONS, PUBLISH_RETRY_ATTEMPTS } from "../../cdk/lifecycle.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import { permissionsOf, type Synthesized, synthesize } from "./synth.ts";

/** The lifecycle publisher in the template: stream, function, its dead letters and alarm, its grants. */
let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

describe("lifecycle publishing", () => {
  it("streams the table's keys to the publisher, a batch per shard at a time, partial failures reported, bisected, then dead-lettered", () => {
    s.template.hasResourceProperties("AWS::DynamoDB::Table", {
      StreamSpecification: { StreamViewType: "KEYS_ONLY" },
    });
    const publisher = s.functionIds.publishLifecycle;
    const deadLetters = s.logicalId(s.runlog.lifecycle!.deadLetters);
    s.template.resourceCountIs("AWS::Lambda::EventSourceMapping", 1);
    s.template.hasResourceProperties("AWS::Lambda::EventSourceMapping", {
      FunctionName: { Ref: publisher },
      EventSourceArn: { "Fn::GetAtt": [s.logicalId(s.runlog.table), "StreamArn"] },
      StartingPosition: "TRIM_HORIZON",
      ParallelizationFactor: 1,
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: PUBLISH_RETRY_ATTEMPTS,
      DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [deadLetters, "Arn"] } } },
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ["INSERT"] }) }] },
    });
  });

  it("tells the publisher its bus and the API's address", () => {
    const fn = s.template.findResources("AWS::Lambda::Function")[s.functionIds.publishLifecycle]!;
    const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables[NAMES.eventBusName]).toEqual({ Ref: s.logicalId(s.runlog.eventBus) });
    expect(variables[NAMES.apiUrl]).toBeDefined();
  });

  it("alarms on a single dead letter of the publisher", () => {
    s.template.hasResourceProperties("AWS::CloudWatch::Alarm", {
      MetricName: "ApproximateNumberOfMessagesVisible",
      Dimensions: [
        {
          Name: "QueueName",
          Value: { "Fn::GetAtt": [s.logicalId(s.runlog.lifecycle!.deadLetters), "QueueName"] },
        },
      ],
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
      AlarmDescription: Match.stringLikeRegexp("lifecycle events"),
    });
  });

  it("lets the publisher put events on its own bus only, read the log, and write nothing", () => {
    const { actions, resources } = permissionsOf(
      s.template,
      s.logicalId(s.runlog.functions.publishLifecycle.role!),
    );
    const bus = { "Fn::GetAtt": [s.logicalId(s.runlog.eventBus), "Arn"] };
    const statements = s.template.findResources("AWS::IAM::Policy");
    const put = Object.values(statements)
      .flatMap(
        (p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
      )
      .filter((st) => [st.Action].flat().includes("events:PutEvents"));
    // One grant of PutEvents in the stack, the publisher's, on the deployment's bus.
    expect(put).toEqual([expect.objectContaining({ Action: "events:PutEvents", Resource: bus })]);
    expect(actions).toEqual(expect.arrayContaining([...LOG_READ_ACTIONS, "events:PutEvents"]));
    expect(
      actions.filter((a) => /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem|Scan)$/.test(a)),
    ).toEqual([]);
    expect(resources).toContainEqual(bus);
  });
});
