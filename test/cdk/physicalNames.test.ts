import { join } from "node:path";
import { App, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { alarmName } from "../../cdk/alarms.ts";
import { MAX_DEPLOYMENT_NAME } from "../../cdk/deployment.ts";
import { Runlog } from "../../cdk/runlog.ts";

/**
 * Every name the construct gives a resource (not one CloudFormation makes up) is one of its
 * deployment's: two deployments whose stack and construct ids join alike with "-" still differ.
 */
const AGENTS = join(import.meta.dirname, "fixtures", "agents.ts");
const ENV = { account: "123456789012", region: "us-east-1" };

/** The properties a template names a resource by, where the name is the account's and region's to keep unique. */
const NAME_PROPERTIES = [
  "AlarmName",
  "Name",
  "LogGroupName",
  "QueueName",
  "FunctionName",
  "StateMachineName",
  "DashboardName",
  "TableName",
  "RoleName",
  "ScheduleName",
  "ApiName",
];

function physicalNames(stack: Stack): string[] {
  const template = Template.fromStack(stack).toJSON() as {
    Resources: Record<string, { Properties?: Record<string, unknown> }>;
    Outputs?: Record<string, { Export?: { Name?: unknown } }>;
  };
  const names = Object.values(template.Resources).flatMap((resource) =>
    NAME_PROPERTIES.map((key) => resource.Properties?.[key]).filter((name) => name !== undefined),
  );
  const exports = Object.values(template.Outputs ?? {}).flatMap((output) =>
    output.Export?.Name === undefined ? [] : [output.Export.Name],
  );
  // A name with a token (a Ref, a join) is resolved at deploy time from the stack: not comparable here.
  return [...names, ...exports].map((name) => (typeof name === "string" ? name : JSON.stringify(name)));
}

describe("two deployments whose stack and construct ids join alike with -", () => {
  const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
  const team = new Stack(app, "Team", { env: ENV });
  const teamAgents = new Stack(app, "Team-Agents", { env: ENV });
  const one = new Runlog(team, "Agents-Prod", { agentsModule: AGENTS });
  const other = new Runlog(teamAgents, "Prod", { agentsModule: AGENTS });
  one.addOutputs({ exportNames: true });
  other.addOutputs({ exportNames: true });

  it("have deployment names apart", () => {
    expect([one.deployment, other.deployment]).toEqual(["Team/Agents-Prod", "Team-Agents/Prod"]);
  });

  it("share no physical name: alarms, log groups, buses, exports", () => {
    const [a, b] = [physicalNames(team), physicalNames(teamAgents)];
    expect(a.filter((name) => name.startsWith("Team/Agents-Prod-Alarms-")).length).toBe(one.alarms.length);
    expect(one.alarms.length).toBeGreaterThan(0);
    const shared = a.filter((name) => b.includes(name));
    expect(shared).toEqual([]);
  });
});

describe("an alarm's name", () => {
  it("is its deployment's name, then -Alarms- and the alarm", () => {
    expect(alarmName("Runlog", "DeadLetters")).toBe("Runlog-Alarms-DeadLetters");
    expect(alarmName("Prod/Agents", "DeadLetters")).toBe("Prod/Agents-Alarms-DeadLetters");
  });

  it("fits CloudWatch's 255 characters for the longest deployment name and stays apart", () => {
    const long = "a".repeat(MAX_DEPLOYMENT_NAME);
    const longer = `${"a".repeat(MAX_DEPLOYMENT_NAME - 1)}b`;
    const alarm = `RunToolA${"b".repeat(39)}ThrottleRate`;
    const names = [alarmName(long, alarm), alarmName(longer, alarm)];
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(255);
      expect(name.endsWith(`-Alarms-${alarm}`)).toBe(true);
    }
    expect(names[0]).not.toBe(names[1]);
  });
});
