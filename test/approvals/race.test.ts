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

  // Both start from the same log, each in its own process (its own cache), the person's request
  // let go a few ticks later each round, so the two meet at every point of each other's read and
  // append: whichever appends its decision first wins the seq; the other finds the call decided
  // (the expiry) or is refused (a person).
  it("resolves to exactly one of them under the seq lock, whichever gets there first", async () => {
    const winners = new Set<string>();
    for (let headStart = 0; headStart < 40; headStart++) {
      const w = world();
      await w.seed("r", [asking]);
      w.tick(60_000);
      const expiry = settled(expireRun(w.process(), "r"));
      for (let tick = 0; tick < headStart; tick++) await Promise.resolve();
      const person = settled(decide(w.process(), { runId: "r", callId: "a", approved: true, by: "ann" }));
      const [byExpiry, byPerson] = await Promise.all([expiry, person]);

      const log = await w.log("r");
      const decisions = log.filter((event) => event.type === "tool_decided");
      expect(decisions).toHaveLength(1);
      expect(log.filter((event) => event.type === "resumed")).toHaveLength(1);
      expect(w.executed).toHaveLength(1);
      const decision = decisions[0]!;
      winners.add(decision.by);
      if (decision.by === "timeout") {
        expect(decision).toMatchObject({ approved: false, reason: "approval expired" });
        expect(byExpiry).toEqual({ ok: true, value: { callIds: ["a"], generation: 2 } });
        expect(byPerson.ok ? undefined : byPerson.error).toBeInstanceOf(ConflictError);
      } else {
        expect(decision).toMatchObject({ approved: true, by: "ann" });
        expect(byPerson).toMatchObject({ ok: true, value: { resumed: true, generation: 2 } });
        expect(byExpiry).toEqual({ ok: true, value: { callIds: [] } });
      }
    }
    // The race was run both ways.
    expect([...winners].sort()).toEqual(["ann", "timeout"]);
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
