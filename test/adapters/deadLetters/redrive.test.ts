import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { DeleteMessageCommand, type Message, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { readDeadLetter } from "../../../lib/adapters/deadLetters/message.ts";
import { type DeadLetterRedrive, redriveDeadLetters } from "../../../lib/adapters/deadLetters/redrive.ts";

const ACCOUNT = "arn:aws:lambda:eu-west-1:123456789012:function";
const START_RUN = `${ACCOUNT}:Runlog-StartRun`;
const RESUME = `${ACCOUNT}:Runlog-Resume`;
const OTHER = `${ACCOUNT}:Other-StartRun`;
const QUEUE = "https://sqs.eu-west-1.amazonaws.com/123456789012/Runlog-DeadLetters";

const startEvent = {
  source: "runlog",
  "detail-type": "runlog.StartRun",
  detail: { agent: "demo", input: "hi" },
};
const failureEvent = {
  source: "aws.states",
  "detail-type": "Step Functions Execution Status Change",
  detail: {},
};

/** A dead letter as EventBridge leaves it: the event as the body, the target in TARGET_ARN. */
const eventLetter = (id: string, target: string, event: unknown = startEvent): Message => ({
  MessageId: id,
  ReceiptHandle: `receipt-${id}`,
  Body: JSON.stringify(event),
  MessageAttributes: {
    RULE_ARN: {
      DataType: "String",
      StringValue: "arn:aws:events:eu-west-1:123456789012:rule/Runlog/StartRun",
    },
    TARGET_ARN: { DataType: "String", StringValue: target },
    ERROR_CODE: { DataType: "String", StringValue: "SDK_CLIENT_ERROR" },
  },
});
/** A dead letter as Lambda's on-failure destination leaves it: the record, with the function qualified. */
const asyncLetter = (id: string, functionArn: string, payload: unknown = failureEvent): Message => ({
  MessageId: id,
  ReceiptHandle: `receipt-${id}`,
  Body: JSON.stringify({
    version: "1.0",
    timestamp: "2026-12-01T10:00:00.000Z",
    requestContext: {
      requestId: "r-1",
      functionArn,
      condition: "RetriesExhausted",
      approximateInvokeCount: 3,
    },
    requestPayload: payload,
    responseContext: { statusCode: 200, executedVersion: "$LATEST", functionError: "Unhandled" },
    responsePayload: { errorType: "RetryableError", errorMessage: "throttled" },
  }),
});

const sqs = mockClient(SQSClient);
const lambda = mockClient(LambdaClient);
const deps: DeadLetterRedrive = {
  sqs: new SQSClient({ region: "eu-west-1" }),
  lambda: new LambdaClient({ region: "eu-west-1" }),
  queueUrl: QUEUE,
  targets: [START_RUN, RESUME],
};

/** The queue hands out these batches, then nothing. */
function queueHolds(...batches: Message[][]) {
  const receive = sqs.on(ReceiveMessageCommand);
  for (const batch of batches) receive.resolvesOnce({ Messages: batch });
  receive.resolves({});
}
const invoked = () =>
  lambda.commandCalls(InvokeCommand).map(({ args: [command] }) => ({
    target: command.input.FunctionName,
    type: command.input.InvocationType,
    payload: JSON.parse(new TextDecoder().decode(command.input.Payload as Uint8Array)) as unknown,
  }));
const deleted = () =>
  sqs.commandCalls(DeleteMessageCommand).map(({ args: [command] }) => command.input.ReceiptHandle);

beforeEach(() => {
  sqs.reset();
  lambda.reset();
  lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
  sqs.on(DeleteMessageCommand).resolves({});
});

describe("redriveDeadLetters", () => {
  it("sends both kinds of dead letter back to their function with the original payload, then deletes them", async () => {
    queueHolds([eventLetter("e1", START_RUN), asyncLetter("a1", `${RESUME}:$LATEST`)]);
    const report = await redriveDeadLetters(deps);
    expect(report).toEqual({
      received: 2,
      redriven: [
        { messageId: "e1", kind: "event", target: START_RUN },
        { messageId: "a1", kind: "async", target: RESUME },
      ],
      kept: [],
    });
    expect(invoked()).toEqual([
      { target: START_RUN, type: "Event", payload: startEvent },
      { target: RESUME, type: "Event", payload: failureEvent },
    ]);
    expect(deleted()).toEqual(["receipt-e1", "receipt-a1"]);
  });

  it("keeps a message whose invoke failed or was not accepted, and deletes the others", async () => {
    lambda
      .on(InvokeCommand)
      .rejectsOnce(Object.assign(new Error("Rate exceeded"), { name: "TooManyRequestsException" }))
      .resolvesOnce({ StatusCode: 500 })
      .resolves({ StatusCode: 202 });
    queueHolds([eventLetter("e1", START_RUN), eventLetter("e2", START_RUN), eventLetter("e3", START_RUN)]);
    const report = await redriveDeadLetters(deps);
    expect(report.kept).toEqual([
      { messageId: "e1", why: `the invoke of ${START_RUN} failed: Rate exceeded` },
      { messageId: "e2", why: `the invoke of ${START_RUN} was not accepted: status 500` },
    ]);
    expect(report.redriven.map((r) => r.messageId)).toEqual(["e3"]);
    expect(deleted()).toEqual(["receipt-e3"]);
  });

  it("refuses a message for another deployment's function: nothing invoked, nothing deleted", async () => {
    queueHolds([eventLetter("e1", OTHER), asyncLetter("a1", `${OTHER}:7`)]);
    const report = await redriveDeadLetters(deps);
    expect(report.kept).toEqual([
      { messageId: "e1", why: `not one of this deployment's functions: ${OTHER}` },
      { messageId: "a1", why: `not one of this deployment's functions: ${OTHER}` },
    ]);
    expect(invoked()).toEqual([]);
    expect(deleted()).toEqual([]);
  });

  it("keeps and reports messages it cannot read or whose target is no function", async () => {
    queueHolds([
      { MessageId: "m1", ReceiptHandle: "receipt-m1", Body: "not json" },
      { MessageId: "m2", ReceiptHandle: "receipt-m2", Body: JSON.stringify({ hello: "world" }) },
      eventLetter("m3", "arn:aws:sqs:eu-west-1:123456789012:SomeQueue"),
    ]);
    const report = await redriveDeadLetters(deps);
    expect(report.received).toBe(3);
    expect(report.kept.map((k) => k.messageId)).toEqual(["m1", "m2", "m3"]);
    expect(report.kept[0]!.why).toMatch(/^the body is not JSON/);
    expect(report.kept[1]!.why).toMatch(/neither an EventBridge dead letter/);
    expect(report.kept[2]!.why).toBe(
      "the target is not a Lambda function: arn:aws:sqs:eu-west-1:123456789012:SomeQueue",
    );
    expect(invoked()).toEqual([]);
    expect(deleted()).toEqual([]);
  });

  it("reports a delivered message whose delete failed as kept: the next redrive delivers it again", async () => {
    sqs.on(DeleteMessageCommand).rejects(new Error("Access denied"));
    queueHolds([eventLetter("e1", START_RUN)]);
    const report = await redriveDeadLetters(deps);
    expect(invoked()).toHaveLength(1);
    expect(report.kept).toEqual([
      { messageId: "e1", why: `redriven to ${START_RUN}, but not deleted: Access denied` },
    ]);
  });

  it("receives no more than maxMessages, in batches of at most ten", async () => {
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => eventLetter(`e${from + i}`, START_RUN));
    queueHolds(batch(0, 10), batch(10, 10), batch(20, 5), batch(25, 10));
    const report = await redriveDeadLetters(deps, { maxMessages: 25, visibilityTimeoutSeconds: 60 });
    expect(report.received).toBe(25);
    expect(report.redriven).toHaveLength(25);
    const receives = sqs.commandCalls(ReceiveMessageCommand).map(({ args: [command] }) => command.input);
    expect(receives.map((input) => input.MaxNumberOfMessages)).toEqual([10, 10, 5]);
    expect(receives.every((input) => input.VisibilityTimeout === 60 && input.QueueUrl === QUEUE)).toBe(true);
  });

  it("stops at an empty receive", async () => {
    queueHolds([eventLetter("e1", START_RUN)]);
    const report = await redriveDeadLetters(deps, { maxMessages: 50 });
    expect(report.received).toBe(1);
    expect(sqs.commandCalls(ReceiveMessageCommand)).toHaveLength(2);
  });
});

describe("readDeadLetter", () => {
  it("drops the qualifier of a destination record's function, so a version or $LATEST is the same function", () => {
    expect(readDeadLetter(asyncLetter("a", `${RESUME}:12`))).toMatchObject({ kind: "async", target: RESUME });
    expect(readDeadLetter(eventLetter("e", `${RESUME}:live`))).toMatchObject({
      kind: "event",
      target: RESUME,
    });
  });
});
