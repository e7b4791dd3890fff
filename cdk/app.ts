import { App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { RunlogStack } from "./runlogStack.ts";

/** cdk.json context keys (`cdk deploy -c runlog:agentsModule=./my/agents.ts`). */
const context = (app: App, key: string): string | undefined => {
  const value = app.node.tryGetContext(`runlog:${key}`) as unknown;
  return typeof value === "string" && value !== "" ? value : undefined;
};

const app = new App();
const agentsModule = context(app, "agentsModule");
const modelKeySecret = context(app, "modelKeySecret");
const eventBusName = context(app, "eventBusName");
const retentionDays = context(app, "retentionDays");
new RunlogStack(app, context(app, "stackName") ?? "Runlog", {
  description: "runlog: durable AI-agent runs (DynamoDB log, Step Functions loop, one Lambda per step)",
  ...(agentsModule ? { agentsModule } : {}),
  ...(modelKeySecret ? { modelKeySecret } : {}),
  ...(eventBusName ? { eventBusName } : {}),
  ...(retentionDays ? { retentionDays: Number(retentionDays) } : {}),
});
// Synthesis fails on any finding that is not acknowledged (with its reason) in cdk/nag.ts, which the construct applies.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
