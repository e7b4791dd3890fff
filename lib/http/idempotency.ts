import { createHash } from "node:crypto";
import type { Context } from "hono";
import { keyedRunId } from "../api/keyedIds.ts";
import type { Runlog } from "../api/runlog.ts";
import { NotFoundError } from "../core/errors.ts";
import { ownerOf, ownerScope } from "../core/principal.ts";
import { invalidInput } from "./errors.ts";
import { check } from "./request.ts";
import { IdempotencyKey } from "./schemas.ts";

/**
 * The key a caller's Idempotency-Key stands for where an id is derived from it alone (a start's
 * run id, a replay batch's id): keys are per caller, so for a scoped caller (`Runlog.as`) it is
 * `scoped-` and the SHA-256 of its owner scope and the key; two owners' equal keys name two runs,
 * and neither learns the other used it. Unscoped (no principal), the key itself, as before.
 * Fork, message, decision and cancel keys need no scope: they live on a run only its owner reaches.
 */
export function callerKey(runlog: Runlog, key: string): string {
  const principal = runlog.principal;
  if (principal === undefined) return key;
  const scope = ownerScope(ownerOf(principal));
  return `scoped-${createHash("sha256").update(`${scope}\n${key}`, "utf8").digest("hex")}`;
}

/**
 * The run id an Idempotency-Key stands for (the caller's key, `callerKey`): `idem-` and 128 bits
 * of its SHA-256. Deterministic, so a retried request (from any server instance, after any
 * crash) names the same run and the store's conditional create decides, with no table of keys
 * to keep. The same key with a different body is a 409.
 */
export function idempotentRunId(runlog: Runlog, key: string): string {
  return keyedRunId(callerKey(runlog, key));
}

/** The run id a POST /runs asks for: its `runId`, the one its Idempotency-Key maps to, or none (a new id). */
export async function requestedRunId(
  c: Context,
  runlog: Runlog,
  bodyRunId: string | undefined,
): Promise<{ runId?: string; fromKey: boolean }> {
  const header = c.req.header("idempotency-key");
  if (header === undefined)
    return bodyRunId === undefined ? { fromKey: false } : { runId: bodyRunId, fromKey: false };
  if (bodyRunId !== undefined) {
    throw invalidInput("runId", "give either runId or an Idempotency-Key header, not both");
  }
  const key = check(IdempotencyKey, header, "Idempotency-Key");
  return { runId: await keyedRunOf(runlog, key), fromKey: true };
}

/**
 * The run a start's key names. Before keys were per caller, a scoped caller's key named
 * `keyedRunId(key)`: a start made then and retried now finds that run, if it is the caller's
 * (another owner's is not found), rather than starting a second one under the new id.
 */
async function keyedRunOf(runlog: Runlog, key: string): Promise<string> {
  const runId = idempotentRunId(runlog, key);
  if (runlog.principal === undefined) return runId;
  const before = keyedRunId(key);
  const found = await runlog.event(before, 1).then(
    () => true,
    (error: unknown) => {
      if (error instanceof NotFoundError) return false;
      throw error;
    },
  );
  return found ? before : runId;
}

/** The Idempotency-Key header of a control request (messages, fork, decisions, cancel), checked, if given. */
export function controlKey(c: Context): { idempotencyKey?: string } {
  const header = c.req.header("idempotency-key");
  return header === undefined ? {} : { idempotencyKey: check(IdempotencyKey, header, "Idempotency-Key") };
}
