import { join } from "node:path";
import { Duration, type Stack } from "aws-cdk-lib";
import { Topic } from "aws-cdk-lib/aws-sns";
import { beforeAll, describe, expect, it } from "vitest";
import {
  METRICS,
  METRICS_DEPLOYMENT,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from "../../lib/adapters/aws/metrics.ts";
import { HANDLERS, permissionsOf, type Synthesized, synthesizeConstruct } from "./synth.ts";

const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
type AlarmProps = {
  Namespace: string;
  MetricName: string;
  Statistic: string;
  Period: number;
  Threshold: number;
  ComparisonOperator: string;
  EvaluationPeriods: number;
  TreatMissingData: string;
  Dimensions?: { Name: string; Value: unknown }[];
  AlarmActions?: unknown[];
  OKActions?: unknown[];
};
const alarmsOf = (s: Synthesized) =>
  Object.entries(s.template.findResources("AWS::CloudWatch::Alarm")).map(([id, r]) => ({
    id,
    ...(r.Properties as AlarmProps),
  }));
const alarm = (s: Synthesized, name: string) => {
  const found = alarmsOf(s).filter((a) => a.id.includes(`Alarms${name}`));
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

/** The dashboard's body as text: CloudFormation joins it from strings and references. */
function dashboardBody(s: Synthesized): string {
  const [dashboard] = Object.values(s.template.findResources("AWS::CloudWatch::Dashboard"));
  const body = dashboard!.Properties.DashboardBody as { "Fn::Join": [string, unknown[]] };
  return body["Fn::Join"][1].map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join("");
}

let s: Synthesized;
let withTopic: Synthesized;
beforeAll(() => {
  s = synthesizeConstruct({ agentsModule: AGENTS, sweepEvery: Duration.minutes(10) });
  withTopic = synthesizeConstruct((stack: Stack) => ({
    agentsModule: AGENTS,
    alarms: { topic: new Topic(stack, "Oncall") },
  }));
});

describe("the alarms", () => {
  const once = { Threshold: 1, EvaluationPeriods: 1, ComparisonOperator: "GreaterThanOrEqualToThreshold" };

  it("fire on the most dead letters waiting in five minutes, not a sum of samples", () => {
    expect(alarm(s, "DeadLetters")).toMatchObject({
      ...once,
      Namespace: "AWS/SQS",
      MetricName: "ApproximateNumberOfMessagesVisible",
      Statistic: "Maximum",
      Period: 300,
      TreatMissingData: "notBreaching",
    });
  });

  it("fire on any failed or timed-out execution, and any function error or throttle, in five minutes", () => {
    for (const [name, metric] of [
      ["ExecutionsFailed", "ExecutionsFailed"],
      ["ExecutionsTimedOut", "ExecutionsTimedOut"],
    ]) {
      expect(alarm(s, name!)).toMatchObject({
        ...once,
        Namespace: "AWS/States",
        MetricName: metric,
        Statistic: "Sum",
        Period: 300,
      });
    }
    for (const handler of HANDLERS) {
      const name = handler[0]!.toUpperCase() + handler.slice(1);
      for (const metric of ["Errors", "Throttles"]) {
        expect(alarm(s, `${name}${metric}`)).toMatchObject({
          ...once,
          Namespace: "AWS/Lambda",
          MetricName: metric,
          Statistic: "Sum",
          Period: 300,
          Dimensions: [{ Name: "FunctionName", Value: { Ref: s.functionIds[handler] } }],
        });
      }
    }
  });

  it("fire on a sweep giving up, on the metric the functions emit, over one sweep's time", () => {
    expect(alarm(s, "SweepGaveUp")).toMatchObject({
      ...once,
      Namespace: METRICS_NAMESPACE,
      MetricName: METRICS.sweepGaveUp.name,
      // This deployment's series only: another deployment's give-ups never fire it.
      Dimensions: [
        { Name: METRICS_DEPLOYMENT, Value: "UserStack/Agents" },
        { Name: "service", Value: METRICS_SERVICE },
      ],
      Statistic: "Sum",
      Period: 600,
      TreatMissingData: "notBreaching",
    });
    expect(alarm(withTopic, "SweepGaveUp").Period).toBe(300);
  });

  it("tell the topic when they fire and clear, and nobody without one", () => {
    const topic = { Ref: withTopic.logicalId(withTopic.stack.node.findChild("Oncall")) };
    const all = alarmsOf(withTopic);
    expect(all.length).toBeGreaterThan(0);
    for (const a of all) expect(a).toMatchObject({ AlarmActions: [topic], OKActions: [topic] });
    for (const a of alarmsOf(s)) expect(a.AlarmActions ?? a.OKActions).toBeUndefined();
  });
});

describe("the dashboard", () => {
  it("graphs every metric the functions emit, under their names", () => {
    s.template.resourceCountIs("AWS::CloudWatch::Dashboard", 1);
    const body = dashboardBody(s);
    expect(body).toContain(`"${METRICS_NAMESPACE}"`);
    for (const metric of Object.values(METRICS)) expect(body, metric.name).toContain(metric.name);
    // Metrics with dimensions are searched over exactly the dimensions they are emitted with, this deployment's only.
    const only = `${METRICS_DEPLOYMENT}=\\"UserStack/Agents\\"`;
    expect(body).toContain(
      `SEARCH('{${METRICS_NAMESPACE},service,deployment,step,outcome} MetricName=\\"${METRICS.steps.name}\\" ${only}'`,
    );
    expect(body).toContain(
      `SEARCH('{${METRICS_NAMESPACE},service,deployment,by,kind} MetricName=\\"${METRICS.resumes.name}\\" ${only}'`,
    );
  });

  it("graphs executions, each function's errors and throttles, and the dead-letter queue", () => {
    const body = dashboardBody(s);
    for (const metric of [
      "ExecutionsStarted",
      "ExecutionsSucceeded",
      "ExecutionsFailed",
      "ExecutionsTimedOut",
    ]) {
      expect(body).toContain(`"AWS/States","${metric}"`);
    }
    for (const handler of HANDLERS) expect(body).toContain(JSON.stringify({ Ref: s.functionIds[handler] }));
    expect(body).toContain('"AWS/SQS","ApproximateNumberOfMessagesVisible"');
  });

  it("is left out with dashboard: false", () => {
    const none = synthesizeConstruct({ agentsModule: AGENTS, dashboard: false });
    none.template.resourceCountIs("AWS::CloudWatch::Dashboard", 0);
    expect(none.runlog.dashboard).toBeUndefined();
  });
});

describe("tracing", () => {
  it("gives each function's role X-Ray's two write actions and no other X-Ray permission", () => {
    for (const handler of HANDLERS) {
      const { actions } = permissionsOf(s.template, s.logicalId(s.runlog.functions[handler].role!));
      expect(actions.filter((action) => action.startsWith("xray:")).sort(), handler).toEqual([
        "xray:PutTelemetryRecords",
        "xray:PutTraceSegments",
      ]);
    }
  });
});
