import type { Message } from "@aws-sdk/client-sqs";
import { errorMessage } from "../../core/errors.ts";

/**
 * What a message in the dead-letter queue asks to be delivered again: the function that could
 * not take it and the payload it was to get. Two senders put messages there (cdk/triggers.ts,
 * cdk/runlog.ts): EventBridge, for an event a rule's target did not take (the body is the event,
 * the attributes name the target), and Lambda, for an async invocation that failed after its
 * retries (the body is the destination record, naming the function and carrying its payload).
 */
export type DeadLetter =
  | { kind: "event"; messageId: string; receiptHandle: string; target: string; payload: string }
  | { kind: "async"; messageId: string; receiptHandle: string; target: string; payload: string };

/** A message that names no function and payload it can be sent back to, and why. */
export interface Unreadable {
  kind: "unreadable";
  messageId: string;
  why: string;
}

/** `arn:…:function:name`, with any version or alias (`:$LATEST`, `:3`) after it dropped. */
const FUNCTION_ARN = /^(arn:[\w-]+:lambda:[\w-]+:\d{12}:function:[\w-]+)(?::[\w$-]+)?$/;

/** The function an ARN names, without its qualifier; undefined for anything else. */
export function unqualifiedFunctionArn(arn: string): string | undefined {
  return FUNCTION_ARN.exec(arn)?.[1];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Which of the two kinds a message is, the function it names and the payload it carries. */
export function readDeadLetter(message: Message): DeadLetter | Unreadable {
  const messageId = message.MessageId ?? "(no message id)";
  const unreadable = (why: string): Unreadable => ({ kind: "unreadable", messageId, why });
  if (message.ReceiptHandle === undefined) return unreadable("no receipt handle");
  if (message.Body === undefined) return unreadable("no body");
  let body: unknown;
  try {
    body = JSON.parse(message.Body);
  } catch (error) {
    return unreadable(`the body is not JSON: ${errorMessage(error)}`);
  }
  const found = { messageId, receiptHandle: message.ReceiptHandle };
  // EventBridge's target dead letter: the event as it was, the target in an attribute.
  const targetAttribute = message.MessageAttributes?.TARGET_ARN?.StringValue;
  if (targetAttribute !== undefined) {
    const target = unqualifiedFunctionArn(targetAttribute);
    if (target === undefined) return unreadable(`the target is not a Lambda function: ${targetAttribute}`);
    return { kind: "event", ...found, target, payload: message.Body };
  }
  // Lambda's on-failure destination record: the function in requestContext, its event in requestPayload.
  if (isRecord(body) && isRecord(body.requestContext) && "requestPayload" in body) {
    const arn = body.requestContext.functionArn;
    if (typeof arn !== "string") return unreadable("the destination record names no functionArn");
    const target = unqualifiedFunctionArn(arn);
    if (target === undefined) return unreadable(`the function is not a Lambda function ARN: ${arn}`);
    return { kind: "async", ...found, target, payload: JSON.stringify(body.requestPayload) };
  }
  return unreadable("neither an EventBridge dead letter (no TARGET_ARN) nor a Lambda destination record");
}
