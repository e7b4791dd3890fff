import { createHash } from "node:crypto";

/** `idem-` and 128 bits of the SHA-256 of `text`: an id a retry derives again, anywhere, with no table of keys. */
const keyedId = (text: string) =>
  `idem-${createHash("sha256").update(text, "utf8").digest("hex").slice(0, 32)}`;

/**
 * The run id an Idempotency-Key of a new run stands for. Deterministic, so a retried request
 * (from any server instance, after any crash) names the same run and the store's conditional
 * create decides.
 */
export const keyedRunId = (key: string): string => keyedId(key);

/** The id of the fork an idempotency key asks for: the same key on the same run is the same fork. */
export const keyedForkId = (runId: string, key: string): string => keyedId(`fork\n${runId}\n${key}`);

/** The replay batch an idempotency key names: `replays-` and 64 bits of the SHA-256 of the key. */
export const keyedBatchId = (key: string): string =>
  `replays-${createHash("sha256").update(`replays\n${key}`, "utf8").digest("hex").slice(0, 16)}`;
