import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLocal } from "../../lib/api/local.ts";
import { LeaseHeldError } from "../../lib/core/errors.ts";
import { cleanup, events, library, runlog, script, tempDataDir, testEnv } from "../support/cli.ts";
import { expectSound, lines } from "./support/checks.ts";
import { crashedRun, listedStatus } from "./support/runs.ts";
import { tally } from "./support/tally.ts";

const dir = tempDataDir("reliability-concurrency");
const RESUMERS = 16;
const SIBLINGS = 64;
const LOSER = /being executed by|resumed by another process|another executor claimed it first/;
const counts = { cliResumers: 0, inProcessResumers: 0, siblingCalls: 0 };

beforeAll(() => library(dir));
afterAll(async () => {
  tally("concurrency", counts);
  await cleanup(dir);
});

describe(`${RESUMERS} concurrent resumers of one interrupted run`, () => {
  it("as separate processes: exactly one executes the generation; the others say why or find it completed", async () => {
    await crashedRun(dir, "cli-race", { text: "Done", stop: "stop", delayMs: 3000 });
    const before = await events(dir, "cli-race");
    const results = await Promise.all(
      Array.from({ length: RESUMERS }, () => runlog(dir, ["resume", "cli-race"])),
    );
    counts.cliResumers += results.length;

    const after = await events(dir, "cli-race");
    expect(after.slice(0, before.length)).toEqual(before);
    // Killed before generation 1 did anything: the winner executes that generation, opening none.
    expect(after.filter((e) => e.type === "resumed")).toEqual([]);
    expect(after.filter((e) => e.type === "model_response")).toHaveLength(1);
    expectSound(dir, after);

    const winners = results.filter((r) => r.code === 0 && !r.stdout.includes("nothing to resume"));
    const shown = results.map((r) => `exit ${r.code}: ${r.stdout} ${r.stderr.split("\n").at(-2)}`);
    expect(winners, shown.join("\n")).toHaveLength(1);
    for (const result of results.filter((r) => r !== winners[0])) {
      if (result.code === 0)
        expect(result.stdout).toMatch(/nothing to resume: the run ended with a final answer/);
      else {
        expect(result.code, result.stderr).toBe(1);
        expect(result.stderr).toMatch(LOSER);
      }
    }
    expect(await listedStatus(dir, "cli-race")).toBe("completed");
  });

  it("in one process, on several library instances: exactly one resumes", async () => {
    await crashedRun(dir, "lib-race", { text: "Done", stop: "stop", delayMs: 3000 });
    const before = await events(dir, "lib-race");
    const instances = await Promise.all(
      Array.from({ length: 4 }, () => openLocal({ dataDir: dir, env: testEnv() })),
    );
    try {
      const settled = await Promise.allSettled(
        Array.from({ length: RESUMERS }, (_, i) => instances[i % 4]!.runlog.resume({ runId: "lib-race" })),
      );
      counts.inProcessResumers += settled.length;
      const resumed = settled.filter((s) => s.status === "fulfilled" && s.value.resume.resumed);
      expect(resumed).toHaveLength(1);
      for (const outcome of settled) {
        if (outcome.status === "rejected") {
          expect(outcome.reason).toBeInstanceOf(LeaseHeldError);
          expect((outcome.reason as Error).message).toMatch(LOSER);
        } else expect(outcome.value).toMatchObject({ status: "completed" });
      }
    } finally {
      await Promise.all(instances.map((instance) => instance.close()));
    }
    const after = await events(dir, "lib-race");
    expect(after.slice(0, before.length)).toEqual(before);
    // Killed before generation 1 did anything: the winner executes that generation, opening none.
    expect(after.filter((e) => e.type === "resumed")).toHaveLength(0);
    expectSound(dir, after);
    expect(await listedStatus(dir, "lib-race")).toBe("completed");
  });
});

describe("sibling tool calls finishing at the same moment", () => {
  it(`all ${SIBLINGS} calls of one response land, each started and answered once`, async () => {
    const texts = Array.from({ length: SIBLINGS }, (_, i) => `sibling ${i}`);
    const model = script(dir, "siblings", [
      { toolCalls: texts.map((text) => ({ name: "write_note", arguments: { text } })) },
      { text: "Done", stop: "stop" },
    ]);
    const { runlog: lib } = await library(dir);
    const outcome = await lib.start({ agent: "demo", input: "go", model, runId: "siblings" });
    counts.siblingCalls += SIBLINGS;
    expect(outcome).toMatchObject({ status: "completed" });
    const log = await events(dir, "siblings");
    expectSound(dir, log);
    const results = log.filter((e) => e.type === "tool_result");
    expect(results).toHaveLength(SIBLINGS);
    for (const result of results) expect(result).toMatchObject({ isError: false });
    expect(lines(dir, "notes.txt").sort()).toEqual([...texts].sort());
  });
});
