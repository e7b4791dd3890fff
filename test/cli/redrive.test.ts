import { afterAll, describe, expect, it } from "vitest";
import { parseDuration } from "../../lib/cli/upkeepCommands.ts";
import { cleanup, events, runlogJson, script, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

const dir = tempDataDir("cli-redrive");
afterAll(() => cleanup(dir));
const DONE = { text: "Done", stop: "stop" };

describe("runlog redrive", () => {
  it("resumes the run that failed retryably, leaves the rejected one, and says so", async () => {
    const outage = script(dir, "outage", [{ error: "connection" }, DONE]);
    const rejected = script(dir, "rejected", [{ error: "rejected" }, DONE]);
    expect((await runlogJson(dir, ["run", "--run-id", "outage", "--model", outage, "go"])).code).toBe(1);
    expect((await runlogJson(dir, ["run", "--run-id", "rejected", "--model", rejected, "go"])).code).toBe(1);

    const dry = await runlogJson(dir, ["redrive", "--dry-run", "--since", "1h"]);
    expect(dry.code).toBe(0);
    expect(dry.json).toMatchObject({
      dryRun: true,
      examined: 2,
      resumed: 1,
      runs: expect.arrayContaining([{ runId: "outage", outcome: "would_resume" }]),
    });
    expect((await events(dir, "outage")).map((e) => e.type)).toEqual(["run_started", "model_failed"]);

    const text = await cli(["redrive", "--agent", "demo"], { dir });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("examined 2 failed run(s): resumed 1, skipped 1, failed 0");
    expect(text.stdout).toContain("  resumed outage (generation 2)");
    expect(text.stdout).toMatch(/ {2}skipped rejected: the model rejected the request/);
    expect((await events(dir, "outage")).map((e) => e.type)).toEqual([
      "run_started",
      "model_failed",
      "resumed",
      "model_response",
    ]);

    const again = await runlogJson(dir, ["redrive"]);
    expect(again.json).toMatchObject({ examined: 1, resumed: 0, skipped: 1 });
  });

  it("is bad usage (exit 2) for a duration it cannot read", async () => {
    const result = await cli(["redrive", "--since", "soon"], { dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'runlog: redrive: --since takes a duration such as 30m, 2h or 1d, got "soon"\n',
    );
  });

  it.each([
    ["90s", 90_000],
    ["30m", 1_800_000],
    ["2h", 7_200_000],
    ["1d", 86_400_000],
  ])("reads --since %s", (value, ms) => {
    expect(parseDuration("--since", value)).toBe(ms);
  });

  it.each(["0m", "2", "1.5h", "-1h", "1w"])("refuses --since %s", (value) => {
    expect(() => parseDuration("--since", value)).toThrow(/takes a duration/);
  });
});
