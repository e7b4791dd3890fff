/**
 * `node --import tsx bench/src/cost/fromTemplate.ts`: synthesize the RunlogStack as `npm run synth`
 * does (its defaults; functions not bundled, which changes no price), store the events of one bench
 * turn as the DynamoDB adapter would (the workload's 2 KB tool result included), and price the
 * turn (turnCost.ts). Prints the markdown table, then one JSON line.
 */
import { rmSync, writeSync } from "node:fs";
import { App } from "aws-cdk-lib";
import { RunlogStack } from "../../../cdk/runlogStack.ts";
import { costMarkdown, type Template, turnCost } from "./turnCost.ts";
import { turnItemBytes } from "./turnItems.ts";

process.env.CDK_DISABLE_CLI_TELEMETRY = "true";
const app = new App({ context: { "aws:cdk:bundling-stacks": [] } });
const stack = new RunlogStack(app, "RunlogCost", { env: { account: "123456789012", region: "us-east-1" } });
const template = app.synth().getStackArtifact(stack.artifactId).template as Template;
// No outdir given: the App synthesized into a temporary folder of its own, which only this script reads.
rmSync(app.outdir, { recursive: true, force: true });

const itemBytes = await turnItemBytes();
const cost = turnCost(template, itemBytes);
writeSync(1, `${costMarkdown(cost)}\n${JSON.stringify({ ...cost, itemBytes })}\n`);
