import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import {
  DescribeExecutionCommand,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handler as api } from "../../functions/api.ts";
import { handler as callModel } from "../../functions/callModel.ts";
import { stepObserver } from "../../functions/observability/observer.ts";
import { handler as startRun } from "../../functions/startRun.ts";
import { handler as sweeper } from "../../functions/sweeper.ts";
import { METRICS, METRICS_DEPLOYMENT, METRICS_NAMESPACE } from "../../lib/adapters/aws/metrics.ts";
import type { NewEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { powertools } from "../../lib/runtime/aws/powertools.ts";
import { NAMES } from "../../lib/runtime/config.ts";
import type { StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { writeNext } from "../../lib/steps/writeNext.ts";
import { started as idleStart } from "../contract/fixtures.ts";
import { createFakeOpenAI, textReply } from "../helpers/fakeOpenAI.ts";
import { logLines, metricLines, outputOf } from "./stdout.ts";
import { busEvent, SECRET_ARN, STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

/** What cdk sets RUNLOG_DEPLOYMENT to for a construct "Agents" in stack "Prod". */
const DEPLOYMENT = "Prod/Agents";
const env = useFunctionEnvironment("fn-observed", {
  STATE_MACHINE_ARN,
  MODEL_KEY_SECRET_ARN: SECRET_ARN,
  // Loud, unlike the other function tests: these read what the functions write.
  POWERTOOLS_LOG_LEVEL: "DEBUG",
  POWERTOOLS_METRICS_DISABLED: "false",
  [NAMES.deployment]: DEPLOYMENT,
});
const secrets = mockClient(SecretsManagerClient);
const sfn = mockClient(SFNClient);
const fake = createFakeOpenAI();
let stopFake = async () => {};
const USER_TEXT = "my private plans for tuesday";
const MODEL_TEXT = "a reply nobody should log";

beforeAll(async () => {
  const { baseURL, close } = await fake.start();
  process.env.OPENAI_BASE_URL = baseURL;
  stopFake = close;
  secrets.on(GetSecretValueCommand).resolves({ SecretString: "sk-observed" });
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
  sfn.on(DescribeExecutionCommand).rejects(new ExecutionDoesNotExist({ message: "none", $metadata: {} }));
});
afterAll(() => stopFake());

describe("a step's logs and metrics", () => {
  it("CallModel emits its step, model latency and token metrics in EMF, and logs with the run's keys", async () => {
    await outputOf(() =>
      startRun(
        busEvent("runlog.StartRun", {
          agent: "demo",
          input: USER_TEXT,
          model: "openai:gpt-t",
          runId: "obs-1",
        }),
      ),
    );
    fake.enqueue(textReply([MODEL_TEXT], "stop", { prompt_tokens: 123, completion_tokens: 45 }));
    const { value, lines } = await outputOf(() => callModel({ runId: "obs-1", generation: 1 }));
    expect(value).toEqual({ action: "done" });

    const [step] = metricLines(lines, METRICS.steps.name);
    expect(step).toMatchObject({
      service: "runlog",
      deployment: DEPLOYMENT,
      step: "callModel",
      outcome: "ok",
      Steps: 1,
    });
    // Each deployment's series apart: the dimension its stack's alarms and dashboard read (cdk/metrics.ts).
    expect(step!._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [["service", METRICS_DEPLOYMENT, "step", "outcome"]],
    });
    expect(step!.StepDuration).toEqual(expect.any(Number));
    const [model] = metricLines(lines, METRICS.modelInputTokens.name);
    expect(model).toMatchObject({
      ModelInputTokens: 123,
      ModelOutputTokens: 45,
      ModelLatency: expect.any(Number),
    });
    expect(model!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([["service", METRICS_DEPLOYMENT]]);

    const logs = logLines(lines);
    const ended = logs.find((line) => line.message === "step ended");
    expect(ended).toMatchObject({
      level: "INFO",
      service: "runlog",
      step: "callModel",
      runId: "obs-1",
      generation: 1,
      seq: 2,
      outcome: "ok",
    });
    expect(logs.find((line) => line.message === "step started")).toMatchObject({
      level: "DEBUG",
      runId: "obs-1",
    });
    // No conversation content and no key in any line.
    const text = JSON.stringify(lines);
    for (const secret of [USER_TEXT, MODEL_TEXT, "sk-observed"]) expect(text).not.toContain(secret);
  });

  it("a failed step logs at error with its category and counts under that outcome", async () => {
    const { lines } = await outputOf(() =>
      callModel({ runId: "obs-none", generation: 1 }).catch(() => "failed"),
    );
    expect(metricLines(lines, METRICS.steps.name)[0]).toMatchObject({
      step: "callModel",
      outcome: "PermanentError",
    });
    expect(logLines(lines).find((line) => line.message === "step failed")).toMatchObject({
      level: "ERROR",
      runId: "obs-none",
      outcome: "PermanentError",
      error: expect.objectContaining({ name: "NotFoundError" }),
    });
  });

  it("a sweep emits the runs it examined, resumed and failed to resume, and the oldest stale run's age", async () => {
    // A run left interrupted an hour ago: stale, so the sweep reads it.
    const anHourAgo = env.storeAt({ now: () => new Date(Date.now() - 3_600_000) });
    await anHourAgo.createRun(idleStart("obs-idle"));
    await anHourAgo.setStatus("obs-idle", "interrupted", 1);
    const { value, lines } = await outputOf(() => sweeper({ "detail-type": "Scheduled Event", detail: {} }));
    const [sweep] = metricLines(lines, METRICS.sweepExamined.name);
    expect(sweep).toMatchObject({
      SweepRunsExamined: value.examined,
      SweepRunsResumed: value.resumed.length,
      SweepRunsFailed: value.failed.length,
      OldestStaleRunAge: Math.round(value.oldestStaleAgeMs! / 1000),
    });
    expect(value.examined).toBeGreaterThan(0);
    expect(value.oldestStaleAgeMs).toBeGreaterThanOrEqual(3_600_000);
    expect(logLines(lines).find((line) => line.message === "runlog sweep")).toMatchObject({
      level: "INFO",
      step: "sweeper",
      examined: value.examined,
    });
  });

  it("counts tool errors (not interrupted calls) and resumes by who and kind", async () => {
    const { logger, metrics } = powertools();
    const observer = stepObserver(logger, metrics);
    const at = new Date();
    const { lines } = await outputOf(async () => {
      const result = (isError: boolean, interrupted?: true): NewEvent => ({
        type: "tool_result",
        callId: "c1",
        name: "weather",
        content: "x",
        isError,
        ...(interrupted ? { interrupted } : {}),
      });
      observer.appended("r", stamp(result(true), 3, at));
      observer.appended("r", stamp(result(true, true), 4, at));
      observer.appended("r", stamp(result(false), 5, at));
      const resumed: NewEvent = {
        type: "resumed",
        generation: 2,
        kind: "run_tools",
        description: "d",
        by: "event",
      };
      observer.appended("r", stamp(resumed, 6, at, 2));
    });
    expect(metricLines(lines, METRICS.toolErrors.name)).toHaveLength(1);
    expect(metricLines(lines, METRICS.resumes.name)).toEqual([
      expect.objectContaining({ by: "event", kind: "run_tools", Resumes: 1 }),
    ]);
  });

  it("counts approvals that expired (not a person's rejections) and executions stopped outside runlog", async () => {
    const { logger, metrics } = powertools();
    const observer = stepObserver(logger, metrics);
    const at = new Date();
    const { lines } = await outputOf(async () => {
      const decided = (by: string): NewEvent => ({ type: "tool_decided", callId: "c1", approved: false, by });
      observer.appended("r", stamp(decided("timeout"), 3, at));
      observer.appended("r", stamp(decided("ann"), 4, at));
      const stopped: NewEvent = {
        type: "execution_stopped",
        generation: 1,
        reason: "execution stopped outside runlog",
      };
      observer.appended("r", stamp(stopped, 5, at));
    });
    expect(metricLines(lines, METRICS.approvalsExpired.name)).toEqual([
      expect.objectContaining({ ApprovalsExpired: 1 }),
    ]);
    expect(metricLines(lines, METRICS.executionsStoppedOutside.name)).toEqual([
      expect.objectContaining({ ExecutionsStoppedOutside: 1 }),
    ]);
  });

  it("counts model failures by kind: retries spent on an unavailable model, or a request refused", async () => {
    const { logger, metrics } = powertools();
    const observer = stepObserver(logger, metrics);
    const at = new Date();
    const { lines } = await outputOf(async () => {
      const failed = (retryable: boolean): NewEvent => ({
        type: "model_failed",
        error: { name: retryable ? "ModelUnavailableError" : "PermanentError", message: "m" },
        retryable,
      });
      observer.appended("r", stamp(failed(true), 3, at));
      observer.appended("r", stamp(failed(false), 4, at));
    });
    expect(metricLines(lines, METRICS.modelFailures.name)).toEqual([
      expect.objectContaining({ kind: "retryable", ModelFailures: 1 }),
      expect.objectContaining({ kind: "rejected", ModelFailures: 1 }),
    ]);
  });

  it("the API counts the resumes it writes, by person, as the steps count theirs", async () => {
    const CALLER = "arn:aws:iam::123456789012:user/obs";
    const first = stamp(
      {
        type: "run_started",
        runId: "obs-api",
        agent: "demo",
        model: "scripted:demo",
        input: "x",
        owner: { id: CALLER },
      },
      1,
      new Date(),
    );
    await env.store().createRun(first as RunStarted);
    // A turn whose tool call never started: a resume opens generation 2 to run it.
    const turn: NewEvent = {
      type: "model_response",
      text: "",
      toolCalls: [{ id: "c1", name: "get_weather", arguments: '{"city":"Faro"}' }],
      stop: "tool_calls",
    };
    await env.store().append("obs-api", stamp(turn, 2, new Date(), 1));
    const rawPath = "/runs/obs-api/resume";
    const { value, lines } = await outputOf(() =>
      api(
        {
          version: "2.0",
          routeKey: "$default",
          rawPath,
          rawQueryString: "",
          headers: { "content-type": "application/json" },
          body: "{}",
          isBase64Encoded: false,
          // Signed by the run's owner: API Gateway puts the IAM caller here.
          requestContext: {
            http: { method: "POST", path: rawPath },
            requestId: "r1",
            authorizer: { iam: { userArn: CALLER } },
          },
        } as never,
        {} as never,
      ),
    );
    expect((value as { statusCode: number }).statusCode).toBe(202);
    expect(metricLines(lines, METRICS.resumes.name)).toEqual([
      expect.objectContaining({ by: "person", kind: "run_tools", Resumes: 1 }),
    ]);
  });

  it("counts a lost seq race where writeNext reads again and retries", async () => {
    const store = env.store();
    const first = stamp(
      { type: "run_started", runId: "obs-race", agent: "demo", model: "m", input: "x" },
      1,
      new Date(),
    );
    await store.createRun(first as RunStarted);
    let raced = false;
    // Another writer takes seq 2 just before this one appends it.
    const racing: EventStore = Object.assign(Object.create(store) as EventStore, {
      append: async (runId: string, event: Parameters<EventStore["append"]>[1]) => {
        if (!raced) {
          raced = true;
          await store.append(runId, stamp({ type: "user_message", text: "first" }, event.seq, new Date(), 1));
        }
        return store.append(runId, event);
      },
    });
    const { logger, metrics } = powertools();
    const deps = {
      store: racing,
      logs: new LogCache(racing),
      clock: { now: () => new Date() },
      observer: stepObserver(logger, metrics),
    } as unknown as StepDeps;
    const { value, lines } = await outputOf(() =>
      writeNext(deps, "obs-race", "any", (events) => ({
        append: { type: "user_message", text: "second" },
        result: (event) => ({ seq: event.seq, after: events.length }),
      })),
    );
    expect(value.seq).toBe(3);
    expect(metricLines(lines, METRICS.lostSeqRaces.name)).toEqual([
      expect.objectContaining({ LostSeqRaces: 1 }),
    ]);
    expect(logLines(lines).find((line) => line.lostSeq === 2)).toMatchObject({ level: "INFO" });
  });
});
