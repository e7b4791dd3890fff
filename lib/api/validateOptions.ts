/**
 * The checks of what starts or steers a run (limits, metadata, model settings, idempotency keys),
 * whose rules are the core's zod schemas, beside validate.ts's checks of shapes (re-exported, so a
 * caller has one `check`). Kept apart so that reading runs (lib/api/runReads.ts) loads no zod.
 */
import { checkLimits, type Limits } from "../core/budget.ts";
import { IdempotencyKeySchema } from "../core/eventFields.ts";
import { checkMetadata } from "../core/metadata.ts";
import { checkModelSettings, type ModelSettings } from "../core/modelSettings.ts";
import { invalid, object } from "./validate.ts";

export * from "./validate.ts";

/** A run's metadata: a JSON object within MAX_METADATA_BYTES, or absent. */
export function optionalMetadata(value: unknown, field: string): void {
  if (value !== undefined) checkMetadata(value, field);
}

/** Options of a control operation (`{ idempotencyKey? }`), or absent: the key checked as the log stores it. */
export function controlOptions(value: unknown, field = "options"): { idempotencyKey?: string } {
  if (value === undefined) return {};
  const given = object(value, field);
  const key = optionalIdempotencyKey(given.idempotencyKey, `${field}.idempotencyKey`);
  return key === undefined ? {} : { idempotencyKey: key };
}

/** An idempotency key (printable ASCII, 1 to 255 characters, as an HTTP Idempotency-Key), or absent. */
export function optionalIdempotencyKey(value: unknown, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (!IdempotencyKeySchema.safeParse(value).success) {
    throw invalid(field, "an idempotency key (1 to 255 printable ASCII characters)", value);
  }
  return value as string;
}

/** A run's limits (lib/core/budget.ts), or absent; the error names the limit that is wrong. */
export function optionalLimits(value: unknown, field = "limits"): Limits | undefined {
  return value === undefined ? undefined : checkLimits(value, field);
}

/** A run's model settings (lib/core/modelSettings.ts), or absent; the error names the setting that is wrong. */
export function optionalModelSettings(value: unknown, field = "modelSettings"): ModelSettings | undefined {
  return value === undefined ? undefined : checkModelSettings(value, field);
}
