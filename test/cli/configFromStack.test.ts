import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { App, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { afterAll, describe, expect, it } from "vitest";
import { Runlog } from "../../cdk/runlog.ts";
import { main } from "../../lib/cli/main.ts";
import { deploymentOf, OUTPUT_KEYS } from "../../lib/runtime/deploymentOutputs.ts";
import { readConfig } from "../../lib/runtime/readConfig.ts";
import { synthesize } from "../cdk/synth.ts";
import { capturedIo } from "./support.ts";

/**
 * `runlog config from-stack --outputs-file`: the file `cdk deploy --outputs-file` writes, made
 * from a synthesized RunlogStack's own outputs (a deploy would put the resolved values in), read
 * back into the CLI's configuration.
 */
const dir = mkdtempSync(join(tmpdir(), "runlog-from-stack-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STACK = "RunlogTest";
const API = "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com";
const ARN = "arn:aws:states:eu-west-1:123456789012:stateMachine:RunStateMachine106B9D3D-x1";
/** What a deploy resolves each output to. */
const DEPLOYED: Record<string, string> = {
  HttpApiUrl: API,
  TableName: "RunlogTest-RunsTable96AAA230-1ABCDEF",
  StateMachineArn: ARN,
  EventBusName: "RunlogTest-Events",
  EventBusArn: "arn:aws:events:eu-west-1:123456789012:event-bus/RunlogTest-Events",
  DeadLettersUrl: "https://sqs.eu-west-1.amazonaws.com/123456789012/RunlogTest-DeadLetters",
  Region: "eu-west-1",
};

const outputKeys = Object.keys(synthesize().template.toJSON().Outputs as Record<string, unknown>);

function outputsFile(stacks: Record<string, Record<string, string>>): string {
  const file = join(dir, `outputs-${Object.keys(stacks).join("-") || "none"}-${Math.random()}.json`);
  writeFileSync(file, JSON.stringify(stacks, null, 2));
  return file;
}

async function cli(args: string[]) {
  const { io, out, err } = capturedIo();
  const code = await main(args, io, { RUNLOG_DIR: join(dir, "data") });
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("the stack's outputs", () => {
  it("are the keys the CLI reads, no more and no fewer", () => {
    expect([...outputKeys].sort()).toEqual(Object.values(OUTPUT_KEYS).sort());
    expect(Object.keys(DEPLOYED).sort()).toEqual([...outputKeys].sort());
  });

  it("carry a prefix and export names when asked, for a stack holding two deployments", () => {
    const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Shared");
    const runlog = new Runlog(stack, "Support", {
      agentsModule: join(import.meta.dirname, "..", "cdk", "fixtures", "agents.ts"),
    });
    runlog.addOutputs({ prefix: "Support", exportNames: true });
    const outputs = Template.fromStack(stack).toJSON().Outputs as Record<
      string,
      { Export?: { Name: string } }
    >;
    expect(Object.keys(outputs).sort()).toEqual(
      Object.values(OUTPUT_KEYS)
        .map((key) => `Support${key}`)
        .sort(),
    );
    expect(outputs.SupportTableName?.Export).toEqual({ Name: "Shared-SupportTableName" });
    expect(() => runlog.addOutputs({ prefix: "not-one" })).toThrow(
      expect.objectContaining({ prop: "prefix" }),
    );
  });
});

describe("runlog config from-stack --outputs-file", () => {
  it("writes the CLI's configuration, which the one schema reads back", async () => {
    const file = outputsFile({ Other: { TableName: "other" }, [STACK]: DEPLOYED });
    const envFile = join(dir, "runlog.env");
    const { code, stderr } = await cli([
      "config",
      "from-stack",
      STACK,
      "--outputs-file",
      file,
      "--out",
      envFile,
    ]);
    expect(stderr).toContain(`wrote ${envFile}`);
    expect(code).toBe(0);
    const text = readFileSync(envFile, "utf8");
    expect(text).toContain(`# HTTP API: ${API}`);
    const config = readConfig(parseEnv(text));
    expect(config.table).toBe(DEPLOYED.TableName);
    expect(config.stateMachine).toBe(ARN);
    expect(config.awsRegion).toBe("eu-west-1");
  });

  it("prints it without --out", async () => {
    const file = outputsFile({ [STACK]: DEPLOYED });
    const { code, stdout } = await cli(["config", "from-stack", STACK, "--outputs-file", file]);
    expect(code).toBe(0);
    expect(parseEnv(stdout)).toEqual({
      RUNLOG_TABLE: DEPLOYED.TableName,
      RUNLOG_STATE_MACHINE_ARN: ARN,
      AWS_REGION: "eu-west-1",
    });
  });

  it("names the stacks the file has when it lacks the one asked for", async () => {
    const file = outputsFile({ Prod: DEPLOYED });
    const { code, stderr } = await cli(["config", "from-stack", STACK, "--outputs-file", file]);
    expect(code).toBe(2);
    expect(stderr).toContain(`has no stack "${STACK}"; it has Prod`);
  });

  it("refuses a stack that is not runlog's, naming the output it lacks", async () => {
    const { TableName: _, ...rest } = DEPLOYED;
    const file = outputsFile({ [STACK]: rest });
    const { code, stderr } = await cli(["config", "from-stack", STACK, "--outputs-file", file]);
    expect(code).toBe(2);
    expect(stderr).toContain("no TableName output");
  });

  it("asks which deployment of two, and takes --prefix", async () => {
    const two = Object.fromEntries(
      ["Support", "Sales"].flatMap((prefix) =>
        Object.entries(DEPLOYED).map(([key, value]) => [
          `${prefix}${key}`,
          value.replace("RunlogTest", prefix),
        ]),
      ),
    );
    const file = outputsFile({ [STACK]: two });
    const refused = await cli(["config", "from-stack", STACK, "--outputs-file", file]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--prefix");
    const chosen = await cli(["config", "from-stack", STACK, "--outputs-file", file, "--prefix", "Sales"]);
    expect(chosen.code).toBe(0);
    expect(parseEnv(chosen.stdout).RUNLOG_TABLE).toBe("Sales-RunsTable96AAA230-1ABCDEF");
  });

  it("takes the region from the state machine when the stack has no Region output", () => {
    const { Region: _, ...rest } = DEPLOYED;
    expect(deploymentOf({ ...rest, StateMachineArn: ARN.replace("eu-west-1", "ap-south-1") }).region).toBe(
      "ap-south-1",
    );
  });
});
