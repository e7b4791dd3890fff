/**
 * `node --import tsx bench/src/short/lambdaBundles.ts <outdir>`: synthesize the RunlogStack as
 * `npm run synth` does (cdk/app.ts's defaults), with esbuild bundling every function as the construct
 * does, into outdir; print one JSON line: each function's bundle file and the NODE_OPTIONS and
 * other plain-string environment variables the template gives it. Whatever cdk/ and functions/
 * are when it runs is what is bundled.
 */
import { writeSync } from "node:fs";
import { join } from "node:path";
import { App } from "aws-cdk-lib";
import { RunlogStack } from "../../../cdk/runlogStack.ts";

export interface LambdaBundle {
  /** The function's handler file, from its description ("runlog callModel"). */
  handler: string;
  file: string;
  /** The function's environment variables whose values are plain strings (no references). */
  environment: Record<string, string>;
}

interface FunctionResource {
  Type: string;
  Properties: {
    Description?: string;
    Handler?: string;
    Code?: { S3Key?: string };
    Environment?: { Variables?: Record<string, unknown> };
  };
}

const outdir = process.argv[2];
if (!outdir) {
  process.stderr.write("usage: lambdaBundles.ts <outdir>\n");
  process.exit(2);
}
process.env.CDK_DISABLE_CLI_TELEMETRY = "true";
const app = new App({ outdir });
const stack = new RunlogStack(app, "RunlogBench", { env: { account: "123456789012", region: "us-east-1" } });
const assembly = app.synth();
const template = assembly.getStackArtifact(stack.artifactId).template as {
  Resources: Record<string, FunctionResource>;
};
const bundles: LambdaBundle[] = [];
for (const resource of Object.values(template.Resources)) {
  if (resource.Type !== "AWS::Lambda::Function") continue;
  const { Description = "", Code, Environment } = resource.Properties;
  // Only runlog's own functions (CDK adds helpers of its own, such as log retention).
  const handler = /^runlog (\w+)$/.exec(Description)?.[1];
  if (!handler || !Code?.S3Key) continue;
  // The synthesizer stages a bundle in asset.<hash>, its key being "<hash>.zip".
  const file = join(outdir, `asset.${Code.S3Key.replace(/\.zip$/, "")}`, "index.mjs");
  const environment = Object.fromEntries(
    Object.entries(Environment?.Variables ?? {}).filter(
      (entry): entry is [string, string] => typeof entry[1] === "string",
    ),
  );
  bundles.push({ handler, file, environment });
}
if (bundles.length === 0) throw new Error(`no runlog function in the synthesized template under ${outdir}`);
writeSync(1, `${JSON.stringify(bundles)}\n`);
