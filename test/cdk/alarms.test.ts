import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { App, Duration, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { staleRunLimit } from "../../cdk/alarms.ts";
import { Runlog } from "../../cdk/runlog.ts";
import { METRICS, METRICS_NAMESPACE, METRICS_SERVICE } from "../../lib/adapters/aws/metrics.ts";
import { HANDLERS, type Synthesized, synthesize, synthesizeConstruct } from "./synth.ts";

const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const ROOT = join(import.meta.dirname, "..", "..");
const RUNBOOKS = join(ROOT, "docs", "runbooks");

interface MetricStat {
  Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] };
  Stat: string;
  Period: number;
}
interface Query {
  Id: string;
  Expression?: string;
  MetricStat?: MetricStat;
  ReturnData?: boolean;
}
interface AlarmProps {
  AlarmName?: unknown;
  AlarmDescription: string;
  Namespace?: string;
  MetricName?: string;
  Statistic?: string;
  Period?: number;
  Dimensions?: { Name: string; Value: unknown }[];
  Metrics?: Query[];
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  DatapointsToAlarm: number;
  TreatMissingData: string;
}
type Found = AlarmProps & { id: string };

const alarmsOf = (template: Template): Found[] =>
  Object.entries(template.findResources("AWS::CloudWatch::Alarm")).map(([id, r]) => ({
    id,
    ...(r.Properties as AlarmProps),
  }));
const nameOf = (alarm: Found) => /Alarms([A-Za-z0-9]+?)[0-9A-F]{8}$/.exec(alarm.id)![1]!;
const byName = (all: Found[], name: string) => {
  const found = all.filter((a) => nameOf(a) === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
/** The alarm's queries' metrics, as `namespace/name`. */
const metricsRead = (alarm: Found) =>
  (alarm.Metrics ?? [])
    .flatMap((q) =>
      q.MetricStat ? [`${q.MetricStat.Metric.Namespace}/${q.MetricStat.Metric.MetricName}`] : [],
    )
    .sort();
const returned = (alarm: Found) => alarm.Metrics!.find((q) => q.ReturnData !== false)!.Expression!;
const runbookOf = (description: string) => /Runbook: (\S+)\.md$/.exec(description)?.[1];
const pages = () =>
  readdirSync(RUNBOOKS)
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => f.replace(/\.md$/, ""));
const fnName = (handler: string) => handler[0]!.toUpperCase() + handler.slice(1);

let s: Synthesized;
let all: Found[];
beforeAll(() => {
  s = synthesizeConstruct({ agentsModule: AGENTS, sweepEvery: Duration.minutes(10) });
  all = alarmsOf(s.template);
});

describe("every alarm has a runbook", () => {
  it("links a page of docs/runbooks/ that exists, after a line of what it means", () => {
    expect(all.length).toBe(10 + 2 * HANDLERS.length);
    for (const alarm of all) {
      expect(alarm.AlarmDescription, alarm.id).toMatch(
        /^runlog: .{20,}\. Runbook: docs\/runbooks\/[a-z0-9-]+\.md$/,
      );
      const page = join(ROOT, `${runbookOf(alarm.AlarmDescription)!}.md`);
      expect(existsSync(page), `${alarm.id}: ${page}`).toBe(true);
    }
  });

  it("and every runbook is some alarm's, listed in the index", () => {
    const linked = new Set(all.map((a) => runbookOf(a.AlarmDescription)!.replace("docs/runbooks/", "")));
    expect(new Set(pages())).toEqual(linked);
    const index = readdirSync(RUNBOOKS).includes("README.md");
    expect(index).toBe(true);
  });

  it("links the runbooks' published copy with runbookBaseUrl", () => {
    const published = synthesizeConstruct({
      agentsModule: AGENTS,
      alarms: { runbookBaseUrl: "https://runbooks.example.com/runlog/" },
    });
    for (const alarm of alarmsOf(published.template)) {
      expect(alarm.AlarmDescription).toMatch(
        / Runbook: https:\/\/runbooks\.example\.com\/runlog\/[a-z0-9-]+\.md$/,
      );
    }
  });
  it("refuses a runbookBaseUrl that links nothing, naming it", () => {
    expect(() => synthesizeConstruct({ agentsModule: AGENTS, alarms: { runbookBaseUrl: " " } })).toThrow(
      expect.objectContaining({ name: "RunlogPropsError", prop: "alarms.runbookBaseUrl" }),
    );
  });
});

describe("the alarms' names", () => {
  it("are written out, and differ between two runlogs of a stack and between stacks", () => {
    const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
    const stacks = ["One", "Two"].map((stackName) => {
      const stack = new Stack(app, stackName, { env: { account: "123456789012", region: "us-east-1" } });
      new Runlog(stack, "Sales", { agentsModule: AGENTS });
      new Runlog(stack, "Support", { agentsModule: AGENTS });
      return stack;
    });
    const names = stacks.flatMap((stack) => alarmsOf(Template.fromStack(stack)).map((a) => a.AlarmName));
    for (const name of names)
      expect(name).toEqual(expect.stringMatching(/^(One|Two)\/(Sales|Support)-Alarms-\w+$/));
    expect(new Set(names).size).toBe(names.length);
  });

  it("leave out RunlogStack's Default construct, as its logical ids do", () => {
    const stack = synthesize();
    const names = alarmsOf(stack.template).map((a) => a.AlarmName);
    expect(names).toContain(`${stack.stack.stackName}-Alarms-DeadLetters`);
  });
});

describe("no alarm pages on a blip", () => {
  it("fires on one only where each one is lost work or a run waiting for a person", () => {
    const onOne = all.filter((a) => a.Threshold <= 1).map(nameOf);
    expect(onOne.sort()).toEqual(["DeadLetters", "LifecycleDeadLetters", "SweepGaveUp"]);
    expect(byName(all, "DeadLetters")).toMatchObject({
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Statistic: "Maximum",
      Period: 300,
      Threshold: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
  });

  it("treats missing data as nothing failed, everywhere", () => {
    for (const alarm of all) expect(alarm.TreatMissingData, alarm.id).toBe("notBreaching");
  });

  it("alarms on the share of executions that failed or timed out over 15 minutes, from 3 of them", () => {
    const alarm = byName(all, "ExecutionFailureRate");
    expect(alarm).toMatchObject({
      Threshold: 5,
      ComparisonOperator: "GreaterThanThreshold",
      EvaluationPeriods: 1,
    });
    expect(metricsRead(alarm)).toEqual([
      "AWS/States/ExecutionsFailed",
      "AWS/States/ExecutionsStarted",
      "AWS/States/ExecutionsTimedOut",
    ]);
    expect(returned(alarm)).toBe("IF(f >= 3, 100 * f / MAX([t, f]), 0)");
    for (const q of alarm.Metrics!)
      if (q.MetricStat) expect(q.MetricStat).toMatchObject({ Stat: "Sum", Period: 900 });
  });

  it.each(HANDLERS)("alarms on %s's error and throttle rates, sustained over 2 of 3 periods", (handler) => {
    const errors = byName(all, `${fnName(handler)}ErrorRate`);
    expect(errors).toMatchObject({ Threshold: 5, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(metricsRead(errors)).toEqual(["AWS/Lambda/Errors", "AWS/Lambda/Invocations"]);
    expect(returned(errors)).toBe("IF(f >= 3, 100 * f / MAX([t, f]), 0)");
    const throttles = byName(all, `${fnName(handler)}ThrottleRate`);
    expect(throttles).toMatchObject({ Threshold: 10, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(metricsRead(throttles)).toEqual(["AWS/Lambda/Invocations", "AWS/Lambda/Throttles"]);
    // Throttled invocations are not among Invocations: the divisor adds them.
    expect(throttles.Metrics!.find((q) => q.Id === "t")!.Expression).toBe("r + f");
    for (const alarm of [errors, throttles]) {
      for (const q of alarm.Metrics!.filter((q) => q.MetricStat)) {
        expect(q.MetricStat!.Metric.Dimensions).toEqual([
          { Name: "FunctionName", Value: { Ref: s.functionIds[handler] } },
        ]);
      }
    }
  });

  it("alarms on the table's throttles and system errors over every operation the store uses, filled", () => {
    for (const [name, metric, threshold] of [
      ["TableThrottles", "ThrottledRequests", 10],
      ["TableSystemErrors", "SystemErrors", 5],
    ] as const) {
      const alarm = byName(all, name);
      expect(alarm).toMatchObject({ Threshold: threshold, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
      const operations = alarm
        .Metrics!.filter((q) => q.MetricStat)
        .map((q) => {
          expect(q.MetricStat!.Metric.MetricName).toBe(metric);
          return q.MetricStat!.Metric.Dimensions!.find((d) => d.Name === "Operation")!.Value;
        });
      expect([...operations].sort()).toEqual([
        "BatchGetItem",
        "DeleteItem",
        "GetItem",
        "PutItem",
        "Query",
        "UpdateItem",
      ]);
      // An operation with no datum would leave a bare sum without a value.
      expect(returned(alarm)).toBe(operations.map((o) => `FILL(${String(o).toLowerCase()}, 0)`).join(" + "));
    }
  });

  it("alarms on the share of the HTTP API's requests answered 5xx", () => {
    const alarm = byName(all, "Api5xxRate");
    expect(alarm).toMatchObject({ Threshold: 5, EvaluationPeriods: 3, DatapointsToAlarm: 2 });
    expect(metricsRead(alarm)).toEqual(["AWS/ApiGateway/5xx", "AWS/ApiGateway/Count"]);
    expect(returned(alarm)).toBe("IF(f >= 5, 100 * f / MAX([t, f]), 0)");
    for (const q of alarm.Metrics!.filter((q) => q.MetricStat)) {
      expect(q.MetricStat!.Metric.Dimensions).toEqual([
        { Name: "ApiId", Value: { Ref: s.logicalId(s.runlog.httpApi) } },
      ]);
    }
  });

  it.each(["retryable", "rejected"])("alarms on the share of model calls failed as %s", (kind) => {
    const alarm = byName(all, `ModelFailures${kind[0]!.toUpperCase()}${kind.slice(1)}`);
    expect(alarm).toMatchObject({ Threshold: 5, EvaluationPeriods: 1 });
    const stats = alarm.Metrics!.filter((q) => q.MetricStat).map((q) => q.MetricStat!);
    expect(stats.map((m) => m.Metric)).toEqual(
      expect.arrayContaining([
        {
          Namespace: METRICS_NAMESPACE,
          MetricName: METRICS.modelFailures.name,
          Dimensions: [
            { Name: "deployment", Value: s.runlog.deployment },
            { Name: "kind", Value: kind },
            { Name: "service", Value: METRICS_SERVICE },
          ],
        },
        {
          Namespace: METRICS_NAMESPACE,
          MetricName: METRICS.steps.name,
          Dimensions: [
            { Name: "deployment", Value: s.runlog.deployment },
            { Name: "outcome", Value: "ok" },
            { Name: "service", Value: METRICS_SERVICE },
            { Name: "step", Value: "callModel" },
          ],
        },
      ]),
    );
    expect(stats).toHaveLength(2);
    expect(returned(alarm)).toBe("IF(f >= 3, 100 * f / MAX([t, f]), 0)");
  });

  it("alarms on a run given up over one sweep's time, so it clears a sweep after the last", () => {
    expect(byName(all, "SweepGaveUp")).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRICS.sweepGaveUp.name,
      // This deployment's series only: another deployment's never fires it.
      Dimensions: [
        { Name: "deployment", Value: s.runlog.deployment },
        { Name: "service", Value: METRICS_SERVICE },
      ],
      Statistic: "Sum",
      Period: 600,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: "GreaterThanOrEqualToThreshold",
    });
  });

  it("alarms on a run stale for three sweeps past staleness, read from the sweeper's gauge", () => {
    expect(staleRunLimit(Duration.minutes(10)).toSeconds()).toBe(600 + 3 * 600);
    expect(staleRunLimit().toSeconds()).toBe(600 + 3 * 300);
    expect(byName(all, "OldestStaleRun")).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRICS.oldestStaleRunAge.name,
      // This deployment's series only: another deployment's never fires it.
      Dimensions: [
        { Name: "deployment", Value: s.runlog.deployment },
        { Name: "service", Value: METRICS_SERVICE },
      ],
      Statistic: "Maximum",
      Period: 600,
      Threshold: 2400,
      ComparisonOperator: "GreaterThanThreshold",
    });
  });
});
