import { join } from "node:path";
import { Duration, type Stack } from "aws-cdk-lib";
import { Topic } from "aws-cdk-lib/aws-sns";
import { beforeAll, describe, expect, it } from "vitest";
import { METRICS, METRICS_DEPLOYMENT, METRICS_NAMESPACE } from "../../lib/adapters/aws/metrics.ts";
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
  // Their shapes and runbooks: test/cdk/alarms.test.ts.
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
