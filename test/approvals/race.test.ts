import { describe, expect, it } from "vitest";
import { ConflictError } from "../../lib/core/errors.ts";
import type { NewEvent } from "../../lib/core/events.ts";
import { decide } from "../../lib/steps/decide.ts";
import { expireRun } from "../../lib/steps/expireApprovals.ts";
import { world } from "../steps/generation/harness.ts";

/** A response whose one call waits for approval for a minute. */
const asking: NewEvent = {
  type: "model_response",
  text: "",
  toolCalls: [{ id: "a", name: "send", arguments: "{}" }],
  stop: "tool_calls",
  approvals: ["a"],
  approvalTimeouts: { a: 60_000 },
};

const settled = async <T>(promise: Promise<T>) =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe("a decision racing the expiry", () => {
  it("before the deadline: the expiry writes nothing", async () => {
    const w = world();
    await w.seed("r", [asking]);
    w.tick(59_999);
    expect(await expireRun(w.process(), "r")).toEqual({ callIds: [] });
    expect(await w.log("r")).toHaveLength(2);
  });

  // Both start from the same log at the deadline, each in its own process (its own cache), one
  // let go a few ticks after the other each round, so the two meet at every point of each
  // other's read and append. The call is the expiry's: the person is always refused, and exactly
  // one decision and one resume are written, by the pass or by the refused request recording the
  // expiry the pass had not yet recorded.
  it("at the deadline, records the expiry exactly once, whichever gets there first, and refuses the person", async () => {
    const recordedBy = new Set<string>();
    for (let headStart = -20; headStart < 20; headStart++) {
      const w = world();
      await w.seed("r", [asking]);
      w.tick(60_000);
      // A negative head start lets the person's request go first.
      const pause = async (ticks: number) => {
        for (let tick = 0; tick < ticks; tick++) await Promise.resolve();
      };
      const expiry = pause(-headStart).then(() => settled(expireRun(w.process(), "r")));
      const person = pause(headStart).then(() =>
        settled(decide(w.process(), { runId: "r", callId: "a", approved: true, by: "ann" })),
      );
      const [byExpiry, byPerson] = await Promise.all([expiry, person]);

      const log = await w.log("r");
      const decisions = log.filter((event) => event.type === "tool_decided");
      expect(decisions).toEqual([
        expect.objectContaining({ approved: false, by: "timeout", reason: "approval expired" }),
      ]);
      expect(log.filter((event) => event.type === "resumed")).toHaveLength(1);
      expect(w.executed).toHaveLength(1);
      expect(byPerson.ok ? undefined : byPerson.error).toBeInstanceOf(ConflictError);
      expect(byExpiry.ok).toBe(true);
      const pass = byExpiry.ok ? byExpiry.value : undefined;
      recordedBy.add(pass?.callIds.length === 1 ? "pass" : "person's request");
    }
    // The race was run both ways.
    expect([...recordedBy].sort()).toEqual(["pass", "person's request"]);
  });

  it("a pass that died after its decision completes the resume next time, once", async () => {
    const w = world();
    await w.seed("r", [
      asking,
      { type: "tool_decided", callId: "a", approved: false, by: "timeout", reason: "approval expired" },
    ]);
    w.tick(60_000);
    expect(await expireRun(w.process(), "r")).toEqual({ callIds: [], generation: 2 });
    expect(w.executed).toEqual([
      expect.objectContaining({ generation: 2, next: { action: "tools", callIds: ["a"], tools: ["send"] } }),
    ]);
    const again = await settled(expireRun(w.process(), "r"));
    expect(w.executed).toHaveLength(1);
    expect((await w.log("r")).filter((event) => event.type === "resumed")).toHaveLength(1);
    expect(again.ok).toBe(true);
  });
});
