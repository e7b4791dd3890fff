import { afterAll, describe, expect, it } from "vitest";
import { localPrincipal } from "../../lib/runtime/local/localPrincipal.ts";
import { cleanup, events, killedMidWait, runlog, runlogJson, script, tempDataDir } from "../support/cli.ts";

/** What `ls` and `resume-point` say about a run whose process was killed. */
const dir = tempDataDir("crashed-views");
afterAll(() => cleanup(dir));

interface Listed {
  runs: { runId: string; status: string; lastSeq: number; updatedAt: string }[];
}
interface Call {
  id: string;
  name: string;
}
interface Point {
  resumable: boolean;
  kind: string;
  description: string;
  rerunToolCalls: Call[];
  interruptedToolCalls: Call[];
}

const weather = (city: string) => ({ toolCalls: [{ name: "get_weather", arguments: { city } }] });

describe("runlog ls", () => {
  it("shows a crashed run's last seq and last activity from its log, not its lagging head", async () => {
    const cities = ["Faro", "Porto", "Braga", "Évora", "Lagos", "Tavira", "Sintra"];
    const model = script(dir, "long", [...cities.map(weather), { text: "done" }]);
    const killed = await runlog(dir, ["run", "--run-id", "long", "--model", model, "tour"], {
      RUNLOG_CRASH_AT: "tool:after-append@6",
    });
    expect(killed.code, killed.stderr).toBe(137);
    const log = await events(dir, "long");
    expect(log).toHaveLength(19);

    const { json } = await runlogJson<Listed>(dir, ["ls"]);
    expect(json.runs.find((run) => run.runId === "long")).toEqual({
      runId: "long",
      agent: "demo",
      status: "interrupted",
      lastSeq: 19,
      createdAt: log[0]!.at,
      updatedAt: log[18]!.at,
      owner: { id: localPrincipal().id },
    });
    const text = await runlog(dir, ["ls"]);
    expect(text.stdout).toMatch(new RegExp(`^long +interrupted +demo +19 events  ${log[18]!.at}$`, "m"));
  });
});

describe("runlog resume-point", () => {
  it("lists a call of an idempotent tool killed while it ran as one resume runs again", async () => {
    await killedMidWait(dir, "waited");
    const { json: point } = await runlogJson<Point>(dir, ["resume-point", "waited"]);
    expect(point).toMatchObject({ resumable: true, kind: "recover_tools", interruptedToolCalls: [] });
    expect(point.rerunToolCalls.map((call) => call.name)).toEqual(["wait"]);
    expect(point.description).toMatch(/run wait \(call_0_0\) again \(the tool is idempotent\)/);
    expect(point.description).not.toMatch(/as interrupted/);
    const text = await runlog(dir, ["resume-point", "waited"]);
    expect(text.stdout).toMatch(/^ {2}run again: call_0_0 {2}wait\(\{"ms":1\}\)$/m);

    // What resume then does: the call runs again and gets its real result.
    expect((await runlog(dir, ["resume", "waited"])).code).toBe(0);
    const results = (await events(dir, "waited")).filter((e) => e.type === "tool_result");
    expect(results).toEqual([
      expect.objectContaining({ callId: "call_0_0", content: "waited 1 ms", rerun: true }),
    ]);
    expect(results[0]).not.toHaveProperty("interrupted");
    const shown = await runlog(dir, ["show", "waited"]);
    expect(shown.stdout).toMatch(/tool wait finished \(run again after an interruption\)/);
  });

  it("marks no re-run on a tool call that ran once", async () => {
    const model = script(dir, "wait-once", [
      { toolCalls: [{ name: "wait", arguments: { ms: 1 } }] },
      { text: "ok" },
    ]);
    expect((await runlog(dir, ["run", "--run-id", "waited-once", "--model", model, "wait"])).code).toBe(0);
    const results = (await events(dir, "waited-once")).filter((e) => e.type === "tool_result");
    expect(results).toHaveLength(1);
    expect(results[0]).not.toHaveProperty("rerun");
  });
});
