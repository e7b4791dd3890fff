import { createHash } from "node:crypto";
import { InvalidInputError } from "../../core/errors.ts";
import { stateMachineArnParts } from "./stateMachineArn.ts";

/** Step Functions' limit on an execution name (and the characters we allow in one). */
export const MAX_EXECUTION_NAME = 80;
const PLAIN = /^[A-Za-z0-9_-]+$/;
/** The prefix of lease owners that are Step Functions executions. */
export const SFN_OWNER_PREFIX = "sfn:";

/**
 * The one execution name of a run's generation: `<runId>-<created>-g<generation>`, or, when the
 * run id is long or has other characters, a readable prefix plus a hash of it. `<created>` is
 * when the run was created (its `run_started` time, base 36), because Step Functions keeps a
 * name for 90 days: a run created again under the id of one retention removed must not meet
 * the old run's executions. Without `createdAt` (names made before it existed), `<runId>-g<n>`.
 * Deterministic, so a retried start names the same execution and Step Functions refuses to
 * start it twice.
 */
export function executionName(runId: string, generation: number, createdAt?: string): string {
  if (runId.length === 0) throw new InvalidInputError("runId: expected a non-empty string");
  if (!Number.isInteger(generation) || generation < 1) {
    throw new InvalidInputError(`generation: expected an integer >= 1 for run ${runId}, got ${generation}`, {
      runId,
    });
  }
  const suffix = `${createdAt === undefined ? "" : `-${incarnation(createdAt)}`}-g${generation}`;
  if (PLAIN.test(runId) && runId.length + suffix.length <= MAX_EXECUTION_NAME) return `${runId}${suffix}`;
  const hash = createHash("sha256").update(runId).digest("hex").slice(0, 20);
  const room = MAX_EXECUTION_NAME - suffix.length - hash.length - 1;
  const readable = runId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, room);
  return `${readable}-${hash}${suffix}`;
}

/** A run's creation time as a short name part: epoch ms in base 36, or a hash of a time that does not parse. */
function incarnation(createdAt: string): string {
  const ms = Date.parse(createdAt);
  if (Number.isFinite(ms) && ms >= 0) return ms.toString(36);
  return createHash("sha256").update(createdAt).digest("hex").slice(0, 8);
}

/** The lease owner an execution holds: `sfn:<executionName>`. */
export function ownerOf(name: string): string {
  return `${SFN_OWNER_PREFIX}${name}`;
}

/** The execution name in an `sfn:` owner; undefined for owners that are not executions. */
export function executionNameOf(owner: string): string | undefined {
  if (!owner.startsWith(SFN_OWNER_PREFIX)) return undefined;
  const name = owner.slice(SFN_OWNER_PREFIX.length);
  return PLAIN.test(name) && name.length <= MAX_EXECUTION_NAME ? name : undefined;
}

/**
 * The ARN of an execution by name: a state machine's ARN with `stateMachine`
 * turned into `execution` and the name appended, as Step Functions builds it.
 */
export function executionArn(stateMachineArn: string, name: string): string {
  const parts = stateMachineArnParts(stateMachineArn);
  parts[5] = "execution";
  return `${parts.join(":")}:${name}`;
}
