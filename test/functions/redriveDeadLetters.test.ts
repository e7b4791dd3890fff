import { InvokeCommand, LambdaClient } from "@aws-sdk/client-lambda";
import { DeleteMessageCommand, type Message, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { NAMES } from "../../lib/runtime/config.ts";
import { handlers } from "./handlers.ts";
import { busEvent, failure, useFunctionEnvironment } from "./support.ts";

/** The names test/reliability/permissions.test.ts gives the stack's queue and starter functions. */
const QUEUE_URL = "https://sqs.us-east-1.amazonaws.com/123456789012/DeadLetters";
const FUNCTION = "arn:aws:lambda:us-east-1:123456789012:function";
const START_RUN = `${FUNCTION}:StartRun`;
const STEER_RUN = `${FUNCTION}:SteerRun`;
const RESUME = `${FUNCTION}:Resume`;
const SWEEPER = `${FUNCTION}:Sweeper`;

useFunctionEnvironment("fn-redrive-dead-letters", {
  [NAMES.deadLettersUrl]: QUEUE_URL,
  [NAMES.redriveTargets]: [START_RUN, STEER_RUN, RESUME, SWEEPER].join(","),
});
const sqs = mockClient(SQSClient);
const lambda = mockClient(LambdaClient);
beforeEach(() => {
  sqs.reset();
  lambda.reset();
  sqs.on(DeleteMessageCommand).resolves({});
  lambda.on(InvokeCommand).resolves({ StatusCode: 202 });
});

const start = busEvent("runlog.StartRun", { agent: "demo", input: "hello", runId: "dl-1" });
const decide = busEvent("runlog.Decide", { runId: "dl-1", callId: "call_1", approved: true });
const tick = { "detail-type": "Scheduled Event", source: "aws.events", detail: {} };
const letters: Message[] = [
  {
    MessageId: "from-rule",
    ReceiptHandle: "r-1",
    Body: JSON.stringify(start),
    MessageAttributes: { TARGET_ARN: { DataType: "String", StringValue: START_RUN } },
  },
  {
    MessageId: "from-lambda",
    ReceiptHandle: "r-2",
    Body: JSON.stringify({ requestContext: { functionArn: `${SWEEPER}:$LATEST` }, requestPayload: tick }),
  },
  {
    MessageId: "from-lambda-resume",
    ReceiptHandle: "r-4",
    Body: JSON.stringify({ requestContext: { functionArn: RESUME }, requestPayload: start }),
  },
  {
    MessageId: "from-lambda-steer",
    ReceiptHandle: "r-5",
    Body: JSON.stringify({ requestContext: { functionArn: `${STEER_RUN}:$LATEST` }, requestPayload: decide }),
  },
  {
    MessageId: "not-ours",
    ReceiptHandle: "r-3",
    Body: JSON.stringify(start),
    MessageAttributes: { TARGET_ARN: { DataType: "String", StringValue: `${FUNCTION}:Elsewhere-StartRun` } },
  },
];

describe("the redriveDeadLetters function", () => {
  it("sends this deployment's dead letters back to their functions, deletes them, and keeps the rest", async () => {
    sqs.on(ReceiveMessageCommand).resolvesOnce({ Messages: letters }).resolves({});
    const report = await handlers.redriveDeadLetters({ maxMessages: 50 });
    expect(report).toEqual({
      received: 5,
      redriven: [
        { messageId: "from-rule", kind: "event", target: START_RUN },
        { messageId: "from-lambda", kind: "async", target: SWEEPER },
        { messageId: "from-lambda-resume", kind: "async", target: RESUME },
        { messageId: "from-lambda-steer", kind: "async", target: STEER_RUN },
      ],
      kept: [
        {
          messageId: "not-ours",
          why: `not one of this deployment's functions: ${FUNCTION}:Elsewhere-StartRun`,
        },
      ],
    });
    expect(lambda.commandCalls(InvokeCommand).map(({ args: [c] }) => c.input.FunctionName)).toEqual([
      START_RUN,
      SWEEPER,
      RESUME,
      STEER_RUN,
    ]);
    // A steering event goes back as it came: its id, the operation's idempotency key, unchanged.
    const steer = lambda
      .commandCalls(InvokeCommand)
      .find(({ args: [c] }) => c.input.FunctionName === STEER_RUN);
    expect(JSON.parse(new TextDecoder().decode(steer!.args[0].input.Payload as Uint8Array))).toEqual(decide);
    expect(sqs.commandCalls(DeleteMessageCommand).map(({ args: [c] }) => c.input.ReceiptHandle)).toEqual([
      "r-1",
      "r-2",
      "r-4",
      "r-5",
    ]);
    expect(sqs.commandCalls(ReceiveMessageCommand)[0]!.args[0].input.MaxNumberOfMessages).toBe(10);
  });

  it("receives a hundred at most when not told, and takes an empty invocation", async () => {
    const batch = Array.from({ length: 10 }, (_, i): Message => ({ ...letters[0]!, MessageId: `m${i}` }));
    sqs.on(ReceiveMessageCommand).resolves({ Messages: batch });
    const report = await handlers.redriveDeadLetters(null);
    expect(report.received).toBe(100);
    expect(sqs.commandCalls(ReceiveMessageCommand)).toHaveLength(10);
  });

  it("refuses a bound that is not a whole number from 1 to 1000, naming the field", async () => {
    for (const maxMessages of [0, 1.5, 1001]) {
      const { name, message } = await failure(handlers.redriveDeadLetters({ maxMessages }));
      // Reported under its category, as every handler reports a failure (functions/handler.ts).
      expect(name).toBe("PermanentError");
      expect(message).toMatch(/maxMessages/);
    }
    expect(sqs.commandCalls(ReceiveMessageCommand)).toEqual([]);
  });
});
