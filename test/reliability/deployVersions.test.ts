import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../lib/core/events.ts";
import { RELEASE_FILE, waitingFile } from "../cdk/fixtures/versions/deployedAgents.ts";
import { type Synthesized, synthesizeConstruct } from "../cdk/synth.ts";
import { textReply, toolCallsReply } from "../helpers/fakeOpenAI.ts";
import { answerOf, httpApiEvent } from "../support/bundleRun/apiEvent.ts";
import { type BundleStack, startBundleStack } from "../support/bundleRun/bundleStack.ts";

/**
 * A deploy while a run is running, through the bundles CDK produced: deployment 1's functions
 * start a run that waits inside a tool; deployment 2 (other code: its tool says "v2") is
 * deployed under it; the running execution goes on calling version 1 to its end, and a run
 * started after the deploy runs on version 2.
 */
const outdir = mkdtempSync(join(tmpdir(), "runlog-versions-"));
const dataDir = mkdtempSync(join(tmpdir(), "runlog-versions-data-"));
const API_KEY = "sk-local-versions";
const BEFORE = "run-before-the-deploy";
const AFTER = "run-after-the-deploy";
const STEPS = ["callModel", "runTool", "recordModelFailure", "finish", "handoff"];

const synth = (module: string): Synthesized =>
  synthesizeConstruct(
    (scope) => ({
      agentsModule: join(import.meta.dirname, "..", "cdk", "fixtures", "versions", module),
      modelKeySecret: new Secret(scope, "ModelKey") as ISecret,
    }),
    { bundle: true, outdir },
  );

let stack: BundleStack;
let v2: Synthesized;

beforeAll(async () => {
  const v1 = synth("v1.ts");
  v2 = synth("v2.ts");
  stack = await startBundleStack({
    synthesized: v1,
    outdir,
    apiKey: API_KEY,
    dataDir,
    // The run before the deploy asks first, then the one after; then each gives its answer.
    script: [
      toolCallsReply([{ id: "call_before", name: "hold", arguments: "{}" }]),
      toolCallsReply([{ id: "call_after", name: "hold", arguments: "{}" }]),
      textReply(["done"]),
      textReply(["done"]),
    ],
  });
}, 300_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(outdir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown) {
  return answerOf(await stack.invoke("api", httpApiEvent(method, path, body)));
}

async function waitFor(file: string): Promise<void> {
  for (let i = 0; i < 1_200 && !existsSync(join(dataDir, file)); i++) await sleep(50);
  expect(existsSync(join(dataDir, file)), `${file} never appeared`).toBe(true);
}

/** The versions of the step functions that served a run's Task states, in order. */
const stepVersions = (runId: string) =>
  stack.host.invocations
    .filter((i) => STEPS.includes(i.fn) && (i.event as { runId?: string }).runId === runId)
    .map((i) => `${i.fn}@${i.version}`);

describe("a deploy under a running run", () => {
  it("leaves the running execution on its versions to its end, and starts the next run on the new ones", async () => {
    const started = await api("POST", "/runs", { agent: "deployer", input: "hold", runId: BEFORE });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    await waitFor(waitingFile("call_before"));

    // The deploy: the state machine now names version 2 of each task function.
    const deployedAt = stack.host.invocations.length;
    const next = stack.deploy(v2, 2);
    expect(
      next
        .filter((spec) => spec.versionArn?.endsWith(":2"))
        .map((spec) => spec.name)
        .sort(),
    ).toEqual([...STEPS].sort());
    const after = await api("POST", "/runs", { agent: "deployer", input: "hold", runId: AFTER });
    expect(after.status, JSON.stringify(after.body)).toBe(202);
    await waitFor(waitingFile("call_after"));

    writeFileSync(join(dataDir, RELEASE_FILE), "");
    await stack.idle();

    for (const runId of [BEFORE, AFTER]) {
      expect((await api("GET", `/runs/${runId}`)).body, runId).toMatchObject({ status: "completed" });
    }
    const results = async (runId: string) => {
      const { events } = (await api("GET", `/runs/${runId}/events`)).body as { events: RunEvent[] };
      return events.filter((e) => e.type === "tool_result").map((e) => JSON.stringify(e));
    };
    expect(await results(BEFORE)).toEqual([expect.stringContaining("ran on v1")]);
    expect(await results(AFTER)).toEqual([expect.stringContaining("ran on v2")]);

    // Every step of the run under way was version 1, the steps after the deploy too.
    expect(stepVersions(BEFORE)).toEqual(["callModel@1", "runTool@1", "callModel@1", "finish@1"]);
    const beforeAfterDeploy = stack.host.invocations
      .slice(deployedAt)
      .filter((i) => (i.event as { runId?: string }).runId === BEFORE);
    expect(beforeAfterDeploy.map((i) => `${i.fn}@${i.version}`)).toEqual(["callModel@1", "finish@1"]);
    // Invoked by their qualified ARNs, as the definitions name them.
    expect(beforeAfterDeploy.every((i) => i.arn.endsWith(":1"))).toBe(true);
    expect(stepVersions(AFTER)).toEqual(["callModel@2", "runTool@2", "callModel@2", "finish@2"]);
    expect(stack.sfn.executions().map((e) => e.status)).toEqual(["SUCCEEDED", "SUCCEEDED"]);
  });
});
