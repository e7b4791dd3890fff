import { InvokeCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import { DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { errorMessage } from "../../core/errors.ts";
import { type DeadLetter, readDeadLetter } from "./message.ts";

/** The queue, the clients, and the only functions a dead letter may be sent back to. */
export interface DeadLetterRedrive {
  sqs: SQSClient;
  lambda: LambdaClient;
  queueUrl: string;
  /** Unqualified function ARNs: this deployment's own rule targets and async-invoked functions. */
  targets: readonly string[];
}

export interface RedriveDeadLettersOptions {
  /** The most messages one redrive receives. @default 100 */
  maxMessages?: number;
  /**
   * How long a received message stays hidden: a kept one is not received again by the same
   * redrive, and is back in the queue for the next one (or a person) after this. @default 300
   */
  visibilityTimeoutSeconds?: number;
}

/** What one redrive did: every message it received is either redriven (and deleted) or kept. */
export interface RedriveDeadLettersReport {
  received: number;
  redriven: { messageId: string; kind: DeadLetter["kind"]; target: string }[];
  /** Left in the queue, and why: unreadable, not this deployment's function, or AWS refused. */
  kept: { messageId: string; why: string }[];
}

export const DEFAULT_MAX_MESSAGES = 100;
/** SQS hands out at most this many messages per receive. */
const BATCH = 10;

/**
 * Send dead letters back to the function that could not take them, with the payload it was to
 * get (an async invoke, as EventBridge and Lambda's retries did), deleting each only once its
 * invoke was accepted. Not back onto the bus: `aws.*` events cannot be put there, and a put
 * event goes to every rule again. A delivery twice is harmless (starts and resumes are
 * idempotent); a message for any function not in `targets` is never sent anywhere.
 */
export async function redriveDeadLetters(
  deps: DeadLetterRedrive,
  options: RedriveDeadLettersOptions = {},
): Promise<RedriveDeadLettersReport> {
  const max = options.maxMessages ?? DEFAULT_MAX_MESSAGES;
  const allowed = new Set(deps.targets);
  const report: RedriveDeadLettersReport = { received: 0, redriven: [], kept: [] };
  while (report.received < max) {
    const { Messages: messages = [] } = await deps.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: deps.queueUrl,
        MaxNumberOfMessages: Math.min(BATCH, max - report.received),
        VisibilityTimeout: options.visibilityTimeoutSeconds ?? 300,
        // Long polling asks every SQS server, so an empty answer means an empty queue.
        WaitTimeSeconds: 1,
        MessageAttributeNames: ["All"],
      }),
    );
    if (messages.length === 0) break;
    report.received += messages.length;
    for (const message of messages) {
      const letter = readDeadLetter(message);
      if (letter.kind === "unreadable") {
        report.kept.push({ messageId: letter.messageId, why: letter.why });
        continue;
      }
      const why = await deliver(deps, allowed, letter);
      if (why === undefined) {
        report.redriven.push({ messageId: letter.messageId, kind: letter.kind, target: letter.target });
      } else report.kept.push({ messageId: letter.messageId, why });
    }
  }
  return report;
}

/** Invoke the letter's function and delete the letter; why it was kept, or undefined once deleted. */
async function deliver(deps: DeadLetterRedrive, allowed: ReadonlySet<string>, letter: DeadLetter) {
  if (!allowed.has(letter.target)) return `not one of this deployment's functions: ${letter.target}`;
  try {
    const { StatusCode } = await deps.lambda.send(
      new InvokeCommand({
        FunctionName: letter.target,
        InvocationType: "Event",
        Payload: new TextEncoder().encode(letter.payload),
      }),
    );
    if (StatusCode !== 202) return `the invoke of ${letter.target} was not accepted: status ${StatusCode}`;
  } catch (error) {
    return `the invoke of ${letter.target} failed: ${errorMessage(error)}`;
  }
  try {
    await deps.sqs.send(
      new DeleteMessageCommand({ QueueUrl: deps.queueUrl, ReceiptHandle: letter.receiptHandle }),
    );
  } catch (error) {
    // Delivered, but still in the queue: the next redrive delivers it again, which is harmless.
    return `redriven to ${letter.target}, but not deleted: ${errorMessage(error)}`;
  }
  return undefined;
}
