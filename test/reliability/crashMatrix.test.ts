import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, runlogJson, type ShownEvent, script, tempDataDir } from "../support/cli.ts";
import { expectSound } from "./support/checks.ts";
import { CrashDriver, type Drive } from "./support/drive.ts";
import { POINTS, SCENARIOS } from "./support/scenarios.ts";
import { tally } from "./support/tally.ts";

/**
 * Every crash point × every scenario, through the real CLI: crash the run (and
 * the resumes after it, up to the scenario's budget), resume or approve until it
 * completes, then check the log and the side effects it left.
 */
const drives: Drive[] = [];

afterAll(() => {
  const sum = (key: "spawns" | "crashes" | "resumes" | "approvals" | "forks") =>
    drives.reduce((total, drive) => total + drive[key], 0);
  tally("crash matrix", {
    cases: drives.length,
    crashPoints: POINTS.length,
    scenarios: SCENARIOS.length,
    processes: sum("spawns"),
    crashes: sum("crashes"),
    casesCrashedTwiceOrMore: drives.filter((drive) => drive.crashes >= 2).length,
    resumes: sum("resumes"),
    approvals: sum("approvals"),
    forks: sum("forks"),
  });
});

describe.concurrent.each(SCENARIOS)("crash matrix: $name", (scenario) => {
  const dir = tempDataDir(`matrix-${scenario.name}`);
  afterAll(() => cleanup(dir));

  it.each(POINTS)("crash at %s, resume until it completes", async (point) => {
    const id = `${scenario.name}-${point.replace(/\W/g, "-")}`;
    const model = script(dir, id, scenario.turns(id));
    const driver = new CrashDriver(dir, point, scenario.nth ?? 1, scenario.crashBudget ?? 2);
    const first = await driver.spawn(["run", "--run-id", id, "--model", model, "go"], id);
    expect(first.code, first.stderr).toBe(137);

    let runId = id;
    let parent: ShownEvent[] = [];
    if (scenario.fork) {
      parent = await events(dir, id);
      runId = `${id}-fork`;
      await driver.spawn(["fork", id, "--id", runId], runId);
      driver.drive.forks++;
    }
    const final = await driver.finish(runId);
    drives.push(driver.drive);

    expectSound(dir, final);
    for (const { log } of driver.drive.snapshots.filter((s) => s.runId === runId)) {
      expect(final.slice(0, log.length)).toEqual(log);
    }
    scenario.exercised?.(final);
    if (scenario.fork) {
      expect(await events(dir, id)).toEqual(parent);
      expect(final[0]).toMatchObject({ runId, parent: { runId: id, seq: parent.length } });
    }
    const cli = await runlogJson(dir, ["resume-point", runId]);
    expect(cli.json).toEqual({
      resumable: false,
      reason: "completed",
      description: expect.any(String),
      seq: final.length,
    });
  });
});
