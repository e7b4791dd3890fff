import { describe, expect, it } from "vitest";
import { IdTakenError, InvalidInputError } from "../../lib/core/errors.ts";
import { startRun } from "../../lib/steps/start.ts";
import { Crash, world } from "./generation/harness.ts";

const ids = { runId: () => "generated" };

describe("startRun", () => {
  it("writes run_started with the lease of generation 1 and executes it", async () => {
    const w = world();
    expect(await startRun({ ...w.process(), ids }, { agent: "a", input: "go" })).toEqual({
      runId: "generated",
      created: true,
    });
    expect(w.executed).toEqual([
      { runId: "generated", generation: 1, next: { action: "model" }, owner: "generated:g1" },
    ]);
    expect((await w.store.getHead("generated"))?.lease?.owner).toBe("generated:g1");
    expect(await w.log("generated")).toEqual([
      expect.objectContaining({ type: "run_started", model: "scripted:test" }),
    ]);
  });

  it.each(["control:after-claim", "control:after-append", "control:before-execute"] as const)(
    "the same start retried after a crash at %s executes generation 1 once",
    async (point) => {
      const w = world();
      const request = { agent: "a", input: "go", runId: "mine" };
      w.crash.at = point;
      await expect(startRun({ ...w.process(), ids }, request)).rejects.toBeInstanceOf(Crash);
      expect(await startRun({ ...w.process(), ids }, request)).toEqual({ runId: "mine", created: false });
      expect(await startRun({ ...w.process(), ids }, request)).toEqual({ runId: "mine", created: false });
      expect(w.executed).toEqual([expect.objectContaining({ runId: "mine", generation: 1 })]);
      expect(await w.log("mine")).toHaveLength(1);
    },
  );

  it("writes nothing for bad input, a bad id, or a model it cannot build; refuses a different start under a taken id", async () => {
    const w = world();
    const deps = { ...w.process(), ids };
    await expect(startRun(deps, { agent: "a", input: " " })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(startRun(deps, { agent: "a", input: "go", runId: "../x" })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    const noModel = {
      ...deps,
      models: () => {
        throw new InvalidInputError("no such model");
      },
    };
    await expect(startRun(noModel, { agent: "a", input: "go", runId: "m" })).rejects.toThrow("no such model");
    expect(w.store.logs.size).toBe(0);
    await startRun(deps, { agent: "a", input: "go", runId: "taken" });
    await expect(startRun(deps, { agent: "a", input: "other", runId: "taken" })).rejects.toBeInstanceOf(
      IdTakenError,
    );
    expect(w.executed).toHaveLength(1);
  });
});
