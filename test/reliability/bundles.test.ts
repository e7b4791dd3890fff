import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HandlerName } from "../../cdk/runlogFunction.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { EFFECTS_FILE } from "../cdk/fixtures/bundleAgents.ts";
import { HANDLERS, synthesizeConstruct } from "../cdk/synth.ts";
import { busEvent } from "../functions/support.ts";
import { type FakeReply, textReply, toolCallsReply } from "../helpers/fakeOpenAI.ts";
import { answerOf, CALLER_ARN, httpApiEvent } from "../support/bundleRun/apiEvent.ts";
import { type BundleStack, startBundleStack } from "../support/bundleRun/bundleStack.ts";
import type { AwsCall } from "../support/iam/awsCalls.ts";
import { deniedCalls } from "../support/iam/evaluate.ts";
import { functionPolicies, type TemplateJson } from "../support/iam/template.ts";

/**
 * A whole run through the Lambda bundles CDK produced, before any deploy: each function's
 * bundle from the cloud assembly in processes of its own, with the handler and environment
 * the template gives it, driven by the template's own state machine definition. A bundling
 * mistake (a missing module, the #agents alias, ESM/CJS, a missing variable) fails it.
 */
const outdir = mkdtempSync(join(tmpdir(), "runlog-bundles-"));
const dataDir = mkdtempSync(join(tmpdir(), "runlog-bundles-data-"));
const API_KEY = "sk-local-from-the-secret";
const START_EVENT_ID = "6f1c2a3b-0d4e-4f50-8a61-7b8c9d0e1f20";
const RUN_ID = `evt-${START_EVENT_ID}`;
const WEATHER = ["call_w_lisbon", "call_w_porto", "call_w_faro"];

const FINAL = "All done: weather checked, team mailed, web-1 may need a look.";
const call = (id: string, name: string, args: Record<string, unknown>) => ({
  id,
  name,
  arguments: JSON.stringify(args),
});
const SCRIPT: FakeReply[] = [
  toolCallsReply(["Lisbon", "Porto", "Faro"].map((city, i) => call(WEATHER[i]!, "get_weather", { city }))),
  toolCallsReply([call("call_mail", "send_email", { to: "team@example.com" })]),
  toolCallsReply([call("call_restart", "restart_server", { host: "web-1" })]),
  textReply([FINAL]),
];

let stack: BundleStack;

beforeAll(async () => {
  const synthesized = synthesizeConstruct(
    (scope) => ({
      agentsModule: join(import.meta.dirname, "..", "cdk", "fixtures", "bundleAgents.ts"),
      // exactOptionalPropertyTypes meets aws-cdk-lib's own optional fields: Secret is an ISecret.
      modelKeySecret: new Secret(scope, "ModelKey") as ISecret,
      // The operator who approves the event-started run (owned by the sender account) over the API.
      adminPrincipals: [CALLER_ARN],
    }),
    { bundle: true, outdir },
  );
  stack = await startBundleStack({ synthesized, outdir, apiKey: API_KEY, script: SCRIPT, dataDir });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(outdir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

/** A request to the deployed API, as API Gateway hands it to the Api bundle. */
async function api(method: string, path: string, body?: unknown) {
  return answerOf(await stack.invoke("api", httpApiEvent(method, path, body)));
}

/** What went wrong in the functions, for a failing expectation's message. */
function functionLogs(): string {
  return [...stack.host.logs].map(([fn, lines]) => `--- ${fn}\n${lines.slice(-40).join("\n")}`).join("\n");
}

describe("a run through the bundled functions", () => {
  it("starts from an event, runs tools in parallel, waits for an approval, survives a dead instance, and completes", async () => {
    // Started as the StartRun rule delivers a runlog.StartRun event from the stack's own bus.
    stack.bus.put(
      busEvent(
        "runlog.StartRun",
        { agent: "ops", input: "Check the weather, mail the team, restart web-1." },
        START_EVENT_ID,
      ),
      stack.eventBusName,
    );
    await stack.idle();
    expect(stack.bus.failures, functionLogs()).toEqual([]);

    // Paused on the call that needs a person: found and approved through the API, as a user would.
    expect((await api("GET", `/runs/${RUN_ID}`)).body, functionLogs()).toMatchObject({ status: "paused" });
    const point = await api("GET", `/runs/${RUN_ID}/resume-point`);
    expect(point.body).toMatchObject({
      resumable: false,
      waitingToolCalls: [{ id: "call_mail", name: "send_email" }],
    });
    const decided = await api("POST", `/runs/${RUN_ID}/approvals/call_mail`, { approved: true });
    expect(decided.status, JSON.stringify(decided.body)).toBe(202);

    // The approval's execution dies with the restart_server instance; Step Functions' failure
    // event reaches the Resume bundle through the ExecutionEnded rule, which resumes the run.
    await stack.idle();
    expect(stack.bus.failures, functionLogs()).toEqual([]);
    const outcome = await api("GET", `/runs/${RUN_ID}`);
    const deliveries = JSON.stringify(stack.bus.delivered.map((d) => d.result));
    expect(outcome.body, `${deliveries}\n${functionLogs()}`).toEqual({
      runId: RUN_ID,
      status: "completed",
      output: FINAL,
    });

    const executions = stack.sfn
      .executions()
      .map((e) => [e.name.replace(/^.*-(g\d+)$/, "$1"), e.status, e.error]);
    expect(executions).toEqual([
      ["g1", "SUCCEEDED", undefined],
      ["g2", "FAILED", "RunStepFailed"],
      ["g3", "SUCCEEDED", undefined],
    ]);
    const resumedBy = stack.bus.delivered.map((d) => [
      d.event["detail-type"],
      stack.host.spec(d.target).name,
    ]);
    expect(resumedBy).toEqual([
      ["runlog.StartRun", "startRun"],
      ["Step Functions Execution Status Change", "resume"],
    ]);
    // The three weather calls ran at once, each in an instance of its own.
    expect(stack.host.peakConcurrency.get("runTool")).toBe(3);

    // The log: every call answered once, the approved one run once, the dead one answered as
    // interrupted (never run again), and each tool's side effect happened once.
    const { events } = (await api("GET", `/runs/${RUN_ID}/events`)).body as { events: RunEvent[] };
    const calls = [...WEATHER, "call_mail", "call_restart"];
    const results = events.filter((e) => e.type === "tool_result");
    const started = events.filter((e) => e.type === "tool_started");
    for (const id of calls) {
      expect(
        results.filter((e) => e.callId === id),
        id,
      ).toHaveLength(1);
      expect(started.filter((e) => e.callId === id).length, id).toBeLessThanOrEqual(1);
    }
    expect(results).toHaveLength(calls.length);
    expect(results.find((e) => e.callId === "call_restart")).toMatchObject({
      isError: true,
      interrupted: true,
    });
    expect(events.filter((e) => e.type === "tool_decided")).toMatchObject([
      { callId: "call_mail", approved: true, by: CALLER_ARN },
    ]);
    expect(events.filter((e) => e.type === "resumed").map((e) => [e.generation, e.by])).toEqual([
      [2, "person"],
      [3, "sweeper"],
    ]);
    const effects = readFileSync(join(dataDir, EFFECTS_FILE), "utf8").trim().split("\n").sort();
    expect(effects).toEqual(
      [
        ...WEATHER.map((id) => `get_weather ${id}`),
        "restart_server call_restart",
        "send_email call_mail",
      ].sort(),
    );

    // The model saw each answer once, the dead call's as interrupted, through the key in the secret.
    expect(stack.model.requests).toHaveLength(SCRIPT.length);
    const lastMessages = stack.model.requests.at(-1)!.body.messages as {
      role: string;
      tool_call_id?: string;
    }[];
    // Parallel results are in the order they were stored, which is the order the tools finished.
    const answers = lastMessages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    expect(answers.toSorted()).toEqual(calls.toSorted());
    expect(stack.calls.calls).toContainEqual({
      fn: "callModel",
      action: "secretsmanager:GetSecretValue",
      resource: stack.secretArns[0],
    });
  });

  it("made only calls the functions' roles in the template allow", async () => {
    const { template, functionIds, stack: cdkStack } = stack.synthesized;
    // Named as the fake endpoints were: CloudFormation's names for the table and the secret.
    const names = Object.fromEntries([
      [stack.table.logicalId, stack.tableName],
      ...Object.keys(template.findResources("AWS::SecretsManager::Secret")).map((id) => [
        id,
        `${cdkStack.stackName}-${id}-AbCdEf`,
      ]),
    ]);
    const policies = functionPolicies(template.toJSON() as TemplateJson, functionIds, names);
    const made = stack.calls.calls.filter((call): call is AwsCall =>
      HANDLERS.includes(call.fn as HandlerName),
    );
    // Every function this run invoked (no model failure, handoff or sweep happened in it).
    expect([...new Set(made.map((call) => call.fn))].sort()).toEqual([
      "api",
      "callModel",
      "finish",
      "resume",
      "runTool",
      "startRun",
    ]);
    const denied = await deniedCalls(made, policies);
    expect(denied.map((d) => `${d.fn} may not ${d.action} on ${d.resource}: ${d.why}`)).toEqual([]);
  });
});
