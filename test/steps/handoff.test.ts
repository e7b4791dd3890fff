import { describe, expect, it } from "vitest";
import { handOff } from "../../lib/steps/handoff.ts";
import { answered, failed, world } from "./generation/harness.ts";

describe("handOff", () => {
  it("passes the lease from the executing owner to the next generation's and starts it", async () => {
    const w = world();
    await w.seed("r", [failed], { owner: "r:g1", state: "running" });
    expect(await handOff(w.process(), { runId: "r", generation: 1, owner: "r:g1" })).toEqual({
      handedOff: true,
      generation: 2,
    });
    expect((await w.store.getHead("r"))?.lease?.owner).toBe("r:g2");
    expect((await w.log("r")).at(-1)).toMatchObject({ type: "resumed", generation: 2, by: "handoff" });
    // Retried (a Lambda retry of the task): the same generation, not another.
    expect(await handOff(w.process(), { runId: "r", generation: 1, owner: "r:g1" })).toEqual({
      handedOff: true,
      generation: 2,
    });
    expect(w.executed).toHaveLength(1);
  });

  it("hands nothing over when the run ended meanwhile: the lease stays with the execution", async () => {
    const w = world();
    await w.seed("r", [answered], { owner: "r:g1", state: "running" });
    expect(await handOff(w.process(), { runId: "r", generation: 1, owner: "r:g1" })).toEqual({
      handedOff: false,
      reason: "completed",
    });
    expect((await w.store.getHead("r"))?.lease?.owner).toBe("r:g1");
    expect(w.executed).toHaveLength(0);
  });
});
