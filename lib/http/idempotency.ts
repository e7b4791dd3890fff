import type { Context } from "hono";
import { keyedRunId } from "../api/keyedIds.ts";
import { invalidInput } from "./errors.ts";
import { check } from "./request.ts";
import { IdempotencyKey } from "./schemas.ts";

/**
 * The run id an Idempotency-Key stands for: `idem-` and 128 bits of its SHA-256.
 * Deterministic, so a retried request (from any server instance, after any
 * crash) names the same run and the store's conditional create decides, with
 * no table of keys to keep. The same key with a different body is a 409.
 */
export function idempotentRunId(key: string): string {
  return keyedRunId(key);
}

/** The run id a POST /runs asks for: its `runId`, the one its Idempotency-Key maps to, or none (a new id). */
export function requestedRunId(
  c: Context,
  bodyRunId: string | undefined,
): { runId?: string; fromKey: boolean } {
  const header = c.req.header("idempotency-key");
  if (header === undefined)
    return bodyRunId === undefined ? { fromKey: false } : { runId: bodyRunId, fromKey: false };
  if (bodyRunId !== undefined) {
    throw invalidInput("runId", "give either runId or an Idempotency-Key header, not both");
  }
  return { runId: idempotentRunId(check(IdempotencyKey, header, "Idempotency-Key")), fromKey: true };
}

/** The Idempotency-Key header of a control request (messages, fork, decisions, cancel), checked, if given. */
export function controlKey(c: Context): { idempotencyKey?: string } {
  const header = c.req.header("idempotency-key");
  return header === undefined ? {} : { idempotencyKey: check(IdempotencyKey, header, "Idempotency-Key") };
}
