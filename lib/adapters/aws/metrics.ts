/**
 * The CloudWatch metrics runlog's functions emit (Embedded Metric Format, see
 * functions/observability/) and the stack's alarms and dashboard read (cdk/alarms.ts,
 * cdk/dashboard.ts): one list, so renaming a metric breaks the test that checks both sides.
 */

/** The CloudWatch namespace of every runlog metric. */
export const METRICS_NAMESPACE = "runlog";

/** The `service` dimension every runlog metric carries (Powertools' default dimension). */
export const METRICS_SERVICE = "runlog";

/**
 * The dimension naming the deployment every metric of a deployed function carries besides
 * `service` (its value the configuration's `deployment`, set by cdk), so two deployments in
 * one account keep apart series and each one's alarms read only its own.
 */
export const METRICS_DEPLOYMENT = "deployment";

/**
 * Each metric, by what it counts, with the dimensions it is emitted with besides `service` and
 * `deployment`.
 * CloudWatch keeps one series per distinct set of dimensions: a reader must name exactly these.
 */
export const METRICS = {
  /** One per handler invocation: `step` the handler, `outcome` ok, answered (a benign conflict) or the error category. */
  steps: { name: "Steps", unit: "Count", dimensions: ["step", "outcome"] },
  /** How long an invocation took (ms), by the same dimensions. */
  stepDuration: { name: "StepDuration", unit: "Milliseconds", dimensions: ["step", "outcome"] },
  /** How long a model call took (ms), from each `model_response`. */
  modelLatency: { name: "ModelLatency", unit: "Milliseconds", dimensions: [] },
  /** Input tokens of each `model_response`. */
  modelInputTokens: { name: "ModelInputTokens", unit: "Count", dimensions: [] },
  /** Output tokens of each `model_response`. */
  modelOutputTokens: { name: "ModelOutputTokens", unit: "Count", dimensions: [] },
  /**
   * Each `model_failed`: a model call whose retries were spent, by `kind`: `retryable` (the
   * provider was unavailable or throttled throughout) or `rejected` (it refused the request).
   */
  modelFailures: { name: "ModelFailures", unit: "Count", dimensions: ["kind"] },
  /** Each `tool_result` with `isError` that a tool returned (not one runlog wrote for an interrupted call). */
  toolErrors: { name: "ToolErrors", unit: "Count", dimensions: [] },
  /** Each conditional append that lost its seq to another writer (the writer read again and went on). */
  lostSeqRaces: { name: "LostSeqRaces", unit: "Count", dimensions: [] },
  /** Each `resumed` event: `by` who (person, event, sweeper, handoff …) and `kind` the resume point. */
  resumes: { name: "Resumes", unit: "Count", dimensions: ["by", "kind"] },
  /** Runs one sweep looked at. */
  sweepExamined: { name: "SweepRunsExamined", unit: "Count", dimensions: [] },
  /** Runs one sweep resumed. */
  sweepResumed: { name: "SweepRunsResumed", unit: "Count", dimensions: [] },
  /** Runs one sweep failed to resume (a store or orchestrator error; the next sweep tries again). */
  sweepFailed: { name: "SweepRunsFailed", unit: "Count", dimensions: [] },
  /**
   * Runs a sweep (or a failure event) found out of automatic resumes: they wait for a person.
   * Counted once per run given up: the sweeper does not count a run it had already rested as
   * given up (functions/observability/giveUps.ts).
   */
  sweepGaveUp: { name: "SweepRunsGivenUp", unit: "Count", dimensions: [] },
  /** Each call whose approval expired: answered as rejected by `timeout` (a `tool_decided` event). */
  approvalsExpired: { name: "ApprovalsExpired", unit: "Count", dimensions: [] },
  /**
   * Each execution stopped outside runlog (an `execution_stopped` event): the run waits for a
   * person's resume instead of being resumed automatically.
   */
  executionsStoppedOutside: { name: "ExecutionsStoppedOutside", unit: "Count", dimensions: [] },
  /**
   * Per sweep, the age (s) of the oldest run it found without progress (stale, not waiting for a
   * person), 0 when none: it grows while recovery falls behind or cannot reach a run.
   */
  oldestStaleRunAge: { name: "OldestStaleRunAge", unit: "Seconds", dimensions: [] },
} as const satisfies Record<
  string,
  { name: string; unit: "Count" | "Milliseconds" | "Seconds"; dimensions: readonly string[] }
>;

/** The `kind` of a `ModelFailures` datum. */
export type ModelFailureKind = "retryable" | "rejected";

export type RunlogMetric = (typeof METRICS)[keyof typeof METRICS];
