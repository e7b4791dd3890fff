import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SFNClient, StartExecutionCommand } from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { awsDeps } from "../../functions/deps.ts";
import type { Metadata } from "../../lib/core/metadata.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { startRun } from "../../lib/steps/start.ts";
import { lines } from "../http/support.ts";
import { execute } from "./execute.ts";
import { STATE_MACHINE_ARN, useFunctionEnvironment } from "./support.ts";

/**
 * A replay run with `replayTools: "recorded"` executed on the deployed functions' handlers (the
 * definition run on them, as Step Functions would): RunTool answers each call from the original's
 * log and never runs the tool. The demo agent's write_note appends to notes.txt: the side effect.
 */
const env = useFunctionEnvironment("fn-replay", { STATE_MACHINE_ARN });
const sfn = mockClient(SFNClient);
const OWNER = { id: "arn:aws:iam::123456789012:role/ci" };
const NOTE = (text: string) => ({ toolCalls: [{ name: "write_note", arguments: { text } }] });
const notes = () => lines(process.env.RUNLOG_DIR!, "notes.txt").length;

beforeEach(() => {
  sfn.reset();
  sfn.on(StartExecutionCommand).resolves({ executionArn: "arn", startDate: new Date() });
});

/** Start a run through the library (as POST /runs/replays does) and run its execution on the handlers. */
async function run(
  runId: string,
  turns: unknown[],
  options: { owner?: { id: string }; metadata?: Metadata } = {},
) {
  const path = join(process.env.RUNLOG_DIR!, `${runId}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  await startRun((await awsDeps()).control(), {
    agent: "demo",
    input: "Note the umbrella",
    runId,
    model: `scripted:${path}`,
    owner: options.owner ?? OWNER,
    ...(options.metadata ? { metadata: options.metadata } : {}),
  });
  const input = JSON.parse(sfn.commandCalls(StartExecutionCommand).at(-1)!.args[0].input.input!);
  return (await execute(input as ExecutionInput)).outcome;
}

const recorded = (of: string): Metadata => ({ replayOf: of, replayTools: "recorded" });
const resultsOf = async (runId: string) =>
  (await env.store().read(runId)).flatMap((e) => (e.type === "tool_result" ? [e] : []));
const startedOf = async (runId: string) =>
  (await env.store().read(runId)).filter((e) => e.type === "tool_started");

describe("RunTool in a replay with recorded tools", () => {
  it("answers a recorded call with its recorded result and runs nothing", async () => {
    const turns = [NOTE("umbrella"), NOTE("umbrella"), { text: "Noted twice.", stop: "stop" }];
    expect(await run("orig", turns)).toMatchObject({ status: "completed" });
    const before = notes();
    expect(await run("orig.replay", turns, { metadata: recorded("orig") })).toMatchObject({
      status: "completed",
      output: "Noted twice.",
    });
    expect(notes()).toBe(before);
    const original = await resultsOf("orig");
    expect((await resultsOf("orig.replay")).map((r) => [r.content, r.isError])).toEqual(
      original.map((r) => [r.content, r.isError]),
    );
    expect(await startedOf("orig.replay")).toEqual([]);
    // Live tools (or no replay at all) run the tool as ever.
    await run("orig.live", turns, { metadata: { replayOf: "orig", replayTools: "live" } });
    expect(notes()).toBe(before + 2);
  });

  it("answers a call the recording has no (unused) match for with a tool error saying so", async () => {
    await run("once", [NOTE("umbrella"), { text: "Noted.", stop: "stop" }]);
    const before = notes();
    const turns = [NOTE("umbrella"), NOTE("umbrella"), NOTE("sunscreen"), { text: "Done.", stop: "stop" }];
    expect(await run("once.replay", turns, { metadata: recorded("once") })).toMatchObject({
      status: "completed",
    });
    const results = await resultsOf("once.replay");
    expect(results.map((r) => r.isError)).toEqual([false, true, true]);
    expect(results[1]!.content).toMatch(/recording of run once has no call of write_note .*umbrella.* left/);
    expect(results[2]!.content).toMatch(/recording of run once has no call of write_note .*sunscreen/);
    expect(notes()).toBe(before);
  });

  it("answers a call the recording has with no result, waiting for a decision, saying so", async () => {
    const EMAIL = {
      toolCalls: [{ name: "send_email", arguments: { to: "ana@example.com", subject: "Hi" } }],
    };
    expect(await run("asks", [EMAIL])).toMatchObject({ status: "paused" });
    expect(
      await run("asks.replay", [EMAIL, { text: "Sent.", stop: "stop" }], { metadata: recorded("asks") }),
    ).toMatchObject({
      status: "completed",
    });
    const [answer] = await resultsOf("asks.replay");
    expect(answer).toMatchObject({ isError: true });
    expect(answer!.content).toBe(
      'send_email failed: the recording of run asks has this call of send_email ({"subject":"Hi","to":"ana@example.com"}) but no result to answer it with: it was waiting for a person\'s decision when the recording ended, and a replay asks nobody',
    );
  });

  it("answers nothing from another owner's run, nor from a run that is not there", async () => {
    await run("theirs", [NOTE("secret"), { text: "Noted.", stop: "stop" }]);
    const before = notes();
    const turns = [NOTE("secret"), { text: "Done.", stop: "stop" }];
    await run("mine.replay", turns, {
      owner: { id: "arn:aws:iam::123456789012:user/eve" },
      metadata: recorded("theirs"),
    });
    expect((await resultsOf("mine.replay"))[0]).toMatchObject({ isError: true });
    expect((await resultsOf("mine.replay"))[0]!.content).toMatch(/not this run's owner's/);
    expect((await resultsOf("mine.replay"))[0]!.content).not.toMatch(/secret/);
    await run("ghost.replay", turns, { metadata: recorded("ghost") });
    expect((await resultsOf("ghost.replay"))[0]!.content).toMatch(/recording of run ghost is not there/);
    expect(notes()).toBe(before);
  });
});
