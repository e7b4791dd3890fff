import * as z from "zod";
import { EVENTS_MAX_LIMIT } from "../api/eventPage.ts";
import { EVENTS_MAX_WAIT_SECONDS } from "../api/eventWait.ts";
import { BATCH_ID, MAX_REPLAY_BATCH, REPLAY_TOOLS } from "../api/replayBatch.ts";
import { KnownLimitsSchema } from "../core/budget.ts";
import { errorMessage } from "../core/errors.ts";
import { validateRunId } from "../core/ids.ts";
import { MAX_JSON_DEPTH, MAX_METADATA_BYTES, MetadataSchema, metadataProblem } from "../core/metadata.ts";
import { KnownModelSettingsSchema, MAX_PROVIDER_OPTIONS_BYTES } from "../core/modelSettings.ts";
import { RUN_STATUSES, type RunStatus } from "../core/status.ts";
import { jsonBytes } from "../core/utf8.ts";

/** Largest request body read at all; larger ones get a 413 before any parsing. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Largest prompt or message, measured as stored (JSON, UTF-8) so an escaped one cannot outgrow an item. */
export const MAX_TEXT_BYTES = 256 * 1024;

/** A non-blank prompt or message of at most MAX_TEXT_BYTES. */
const text = z
  .string()
  .refine((value) => value.trim() !== "", "must not be empty")
  .refine((value) => jsonBytes(value) <= MAX_TEXT_BYTES, `must be at most ${MAX_TEXT_BYTES / 1024} KB`)
  // What the refinements check, for the OpenAPI document (JSON Schema counts characters, not bytes).
  .meta({
    minLength: 1,
    maxLength: MAX_TEXT_BYTES,
    description: `not blank; at most ${MAX_TEXT_BYTES / 1024} KB as stored (JSON, UTF-8)`,
  });

/**
 * The run ids validateRunId allows, as the OpenAPI document states them; validateRunId is the
 * check (test/http/openapi.test.ts holds the two to the same answers).
 */
export const RUN_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$";
/** The longest run id validateRunId allows. */
export const RUN_ID_MAX_LENGTH = 128;

/** A run id as validateRunId allows (no path characters, at most 128). */
export const runId = (what: string) =>
  z
    .string()
    .superRefine((value, ctx) => {
      try {
        validateRunId(value, what);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: errorMessage(error) });
      }
    })
    .meta({ minLength: 1, maxLength: RUN_ID_MAX_LENGTH, pattern: RUN_ID_PATTERN });

/** A run's metadata: a JSON object within MAX_METADATA_BYTES (core/metadata.ts's one check). */
const metadata = MetadataSchema.superRefine((value, ctx) => {
  const problem = metadataProblem(value);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
}).meta({
  description: `at most ${MAX_METADATA_BYTES} bytes as JSON; arrays and objects nested at most ${MAX_JSON_DEPTH} levels deep, the object itself counting as one`,
});

/** Model settings as core checks them, their byte limit stated for the OpenAPI document. */
const modelSettings = KnownModelSettingsSchema.extend({
  providerOptions: KnownModelSettingsSchema.shape.providerOptions.meta({
    description: `at most ${MAX_PROVIDER_OPTIONS_BYTES} bytes as JSON; arrays and objects nested at most ${MAX_JSON_DEPTH} levels deep, the object itself counting as one`,
  }),
});

const short = (max: number) => z.string().min(1).max(max);

/** A whole number of a body, from `min` to `max`, refused in one sentence that says the range. */
const whole = (min: number, max: number = Number.MAX_SAFE_INTEGER) => {
  const words = `must be a whole number, ${max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`}`;
  return z.number({ error: words }).int(words).min(min, words).max(max, words);
};

/** POST /runs. */
export const StartBody = z.strictObject({
  agent: short(128),
  input: text,
  runId: runId("run id").optional(),
  model: short(1024).optional(),
  metadata: metadata.optional(),
  /** Lower than the agent's limits, never above. */
  limits: KnownLimitsSchema.optional(),
  /** Replace the agent's settings named; maxOutputTokens never above the agent's. */
  modelSettings: modelSettings.optional(),
});

/** POST /runs/{id}/resume. */
export const ResumeBody = z.strictObject({
  model: short(1024).optional(),
  /** Limits to go on with (a `budget_exhausted` run's reached limit raised), recorded on the `resumed` event. */
  limits: KnownLimitsSchema.optional(),
  /** Model settings to go on with, replacing the run's named, recorded on the `resumed` event. */
  modelSettings: modelSettings.optional(),
});

/** POST /runs/{id}/fork. */
export const ForkBody = z.strictObject({
  atSeq: whole(1).optional(),
  input: text.optional(),
  forkId: runId("fork id").optional(),
  model: short(1024).optional(),
  /** Model settings the fork goes on with, replacing the parent's named. */
  modelSettings: modelSettings.optional(),
});

/** POST /runs/{id}/messages. */
export const MessageBody = z.strictObject({ message: text });

/** Whom a decision or cancel is for: not blank (the library would refuse it as `actor.by`, a field no body has). */
const actor = {
  by: short(256)
    .refine((value) => value.trim() !== "", "must not be blank")
    .meta({ description: "not blank" })
    .optional(),
  reason: z.string().max(4096).optional(),
};

/** POST /runs/{id}/cancel. */
export const CancelBody = z.strictObject(actor);

/** POST /runs/{id}/approvals/{callId}: `approved: false` rejects. */
export const DecisionBody = z.strictObject({ approved: z.boolean(), ...actor });

/** POST /runs/redrive: which failed runs to resume, and how fast. */
export const RedriveBody = z.strictObject({
  /** Only runs whose head changed within this many milliseconds. */
  sinceMs: whole(1).optional(),
  agent: z.string().min(1).max(256).optional(),
  dryRun: z.boolean().optional(),
  concurrency: whole(1, 64).optional(),
  perSecond: whole(1, 1000).optional(),
});

/**
 * A whole number in a query string (or a path, a header): digits only, so "1e3", "-1" and "0x10"
 * are refused, and one message for any refusal that says the range. The OpenAPI document
 * describes it as the integer it stands for (a query parameter's schema may be an integer), so a
 * generated client types it as a number and knows its range.
 */
const count = (min: number, max: number) => {
  const words = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .transform((value, ctx) => {
      const number = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
      if (number >= min && number <= max) return number;
      ctx.addIssue({ code: "custom", message: `${words}, got ${JSON.stringify(value.slice(0, 40))}` });
      return z.NEVER;
    })
    .meta({ type: "integer", minimum: min, maximum: max });
};

/** GET /runs?limit&cursor. */
export const ListQuery = z.strictObject({
  limit: count(1, 1000).optional(),
  cursor: z.string().min(1).max(4096).optional(),
  status: z.enum(RUN_STATUSES as [RunStatus, ...RunStatus[]]).optional(),
  /** Only the forks of this run. */
  parent: runId("parent").optional(),
  /** Only the child runs of this run's sub-agent calls (one page, in call order). */
  childrenOf: runId("childrenOf").optional(),
});

/** GET /runs/{id}/events?after&limit&wait: `wait`, seconds to hold an empty answer for the next event. */
export const EventsQuery = z.strictObject({
  after: count(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: count(1, EVENTS_MAX_LIMIT).optional(),
  wait: count(0, EVENTS_MAX_WAIT_SECONDS).optional(),
});

/** The Last-Event-ID an EventSource sends when it reconnects: the seq of the last event it had. */
export const LastEventId = count(0, Number.MAX_SAFE_INTEGER);

/** GET /runs/{id}/live?after. */
export const LiveQuery = z.strictObject({ after: count(0, Number.MAX_SAFE_INTEGER).optional() });

/** A lifecycle event's seq, as its id writes it: a whole number from 1, at most 16 digits. */
const LIFECYCLE_SEQ = "[1-9][0-9]{0,15}";

/** A lifecycle event's id (`runId/seq`), as GET /lifecycle's Last-Event-ID or `after` names the last one a client had. */
export const LifecycleId = z
  .string()
  .max(300)
  .superRefine((value, ctx) => {
    const slash = value.lastIndexOf("/");
    if (slash < 0) {
      ctx.addIssue({
        code: "custom",
        message: `must be RUN_ID/SEQ (the id of a lifecycle event): ${JSON.stringify(value.slice(0, 40))} has no "/SEQ" part`,
      });
      return;
    }
    const seq = value.slice(slash + 1);
    try {
      validateRunId(value.slice(0, Math.max(slash, 0)), "the id's run id");
    } catch (error) {
      ctx.addIssue({ code: "custom", message: `must be RUN_ID/SEQ: ${errorMessage(error)}` });
      return;
    }
    if (!new RegExp(`^${LIFECYCLE_SEQ}$`).test(seq)) {
      ctx.addIssue({ code: "custom", message: "must be RUN_ID/SEQ, SEQ a whole number from 1" });
    }
  })
  .meta({ pattern: `${RUN_ID_PATTERN.slice(0, -1)}/${LIFECYCLE_SEQ}$` });

/** GET /lifecycle?after: the id of the last lifecycle event the client had (as Last-Event-ID, for a first connection). */
export const LifecycleQuery = z.strictObject({ after: LifecycleId.optional() });

/** A seq in a path: a whole number from 1. */
export const Seq = count(1, Number.MAX_SAFE_INTEGER);

/** GET /runs/{id}/events/{seq}?part: parts are numbered from 0. */
export const EventQuery = z.strictObject({ part: count(0, Number.MAX_SAFE_INTEGER).optional() });

/** A tool call id from a path: only compared with the log, so any printable text of a sane length. */
export const CallId = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");

/** What a client sends as Idempotency-Key: printable ASCII, as the IETF draft and Stripe allow. */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII");

/** POST /runs/replays. */
export const ReplaysBody = z.strictObject({
  /** The recorded runs to replay, each one the caller may see. */
  runIds: z.array(runId("run id")).min(1).max(MAX_REPLAY_BATCH),
  /** The model spec every replay runs on. */
  model: short(1024),
  /** `recorded` answers tool calls from each run's recording; `live` runs the tools. */
  tools: z.enum(REPLAY_TOOLS).optional(),
});

/** A replay batch's id in a path: `replays-` and 16 hex digits. */
export const BatchId = z.string().regex(BATCH_ID, "expected replays- and 16 hex digits");
