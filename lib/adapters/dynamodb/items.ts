import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { CorruptEventError, errorMessage, InvalidInputError } from "../../core/errors.ts";
import { decodeEvent, type RunEvent } from "../../core/events.ts";
import { RUN_STATUSES, type RunStatus } from "../../core/status.ts";
import { MAX_EVENT_BYTES, type RunHead } from "../../ports/eventStore.ts";

/** One stored DynamoDB item in wire form. */
export type Item = Record<string, AttributeValue>;

/** The run-head shares the run's partition, below every event, so one Query can never confuse the two. */
export const HEAD_SEQ = 0;

/** Attribute value builders: the table only ever stores strings and numbers. */
export const str = (value: string): AttributeValue => ({ S: value });
export const num = (value: number): AttributeValue => ({ N: String(value) });

/** The primary key of an event (seq >= 1) or of the head (seq 0). */
export function key(runId: string, seq: number): Item {
  return { runId: str(runId), seq: num(seq) };
}

/** A string attribute, or undefined when it is missing or of another type. */
export function readString(item: Item, name: string): string | undefined {
  const value = item[name];
  return value && "S" in value ? value.S : undefined;
}

/** A numeric attribute, or undefined when it is missing or not a finite number. */
export function readNumber(item: Item, name: string): number | undefined {
  const value = item[name];
  if (!value || !("N" in value) || value.N === undefined) return undefined;
  const parsed = Number(value.N);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * An event item keeps the whole event as JSON text in `body`; `type` and `at`
 * are copies for people browsing the table. This is the one place to
 * compress or chunk big payloads later.
 */
export function encodeEvent(runId: string, event: RunEvent): Item {
  const body = JSON.stringify(event);
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes > MAX_EVENT_BYTES) {
    const fromUser =
      event.type === "run_started" || event.type === "resumed" || event.type === "user_message";
    throw new InvalidInputError(
      `run ${runId}: the ${event.type} event at seq ${event.seq} is ${bytes} bytes as stored, over the ` +
        `${MAX_EVENT_BYTES} a DynamoDB item can hold${fromUser ? ": shorten the input" : ""}`,
    );
  }
  return {
    ...key(runId, event.seq),
    type: str(event.type),
    at: str(event.at),
    body: str(body),
  };
}

/** The stored event, or a CorruptEventError naming its seq: never a half-valid value. */
export function decodeEventItem(runId: string, item: Item): RunEvent {
  const seq = readNumber(item, "seq") ?? Number.NaN;
  const body = readString(item, "body");
  if (body === undefined) throw new CorruptEventError(runId, seq, "the item has no body attribute");
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (error) {
    throw new CorruptEventError(runId, seq, `body is not valid JSON (${errorMessage(error)})`);
  }
  const decoded = decodeEvent(raw);
  if (!decoded.ok) throw new CorruptEventError(runId, seq, decoded.problem);
  if (decoded.event.seq !== seq) {
    throw new CorruptEventError(runId, seq, `the body says seq ${decoded.event.seq}`);
  }
  return decoded.event;
}

/** A head as written in full (createRun, repair); partial updates go through UpdateItem. */
export function encodeHead(head: RunHead): Item {
  const item: Item = {
    ...key(head.runId, HEAD_SEQ),
    status: str(head.status),
    lastSeq: num(head.lastSeq),
    agent: str(head.agent),
    createdAt: str(head.createdAt),
    updatedAt: str(head.updatedAt),
    leaseVersion: num(head.leaseVersion),
  };
  if (head.lease) {
    item.leaseOwner = str(head.lease.owner);
    item.leaseUntil = num(head.lease.until);
  }
  return item;
}

const isStatus = (value: string | undefined): value is RunStatus =>
  value !== undefined && (RUN_STATUSES as readonly string[]).includes(value);

/** A head item, or undefined when it lacks what a head needs (then the caller repairs it from the log). */
export function decodeHead(item: Item): RunHead | undefined {
  const runId = readString(item, "runId");
  const status = readString(item, "status");
  const lastSeq = readNumber(item, "lastSeq");
  const agent = readString(item, "agent");
  const createdAt = readString(item, "createdAt");
  if (runId === undefined || !isStatus(status) || lastSeq === undefined) return undefined;
  if (agent === undefined || createdAt === undefined) return undefined;
  const head: RunHead = {
    runId,
    agent,
    status,
    lastSeq,
    createdAt,
    updatedAt: readString(item, "updatedAt") ?? createdAt,
    leaseVersion: readNumber(item, "leaseVersion") ?? 0,
  };
  const owner = readString(item, "leaseOwner");
  const until = readNumber(item, "leaseUntil");
  if (owner !== undefined && until !== undefined) head.lease = { owner, until };
  return head;
}
