import { describe, expect, it } from "vitest";
import { ConflictError, NotFoundError } from "../../lib/core/errors.ts";
import type { NewEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { decide } from "../../lib/steps/decide.ts";
import { Crash, world } from "./generation/harness.ts";

const R = "r";
/** A response whose two calls wait for a person's approval. */
const asking: NewEvent = {
  type: "model_response",
  text: "",
  toolCalls: [
    { id: "a", name: "delete", arguments: "{}" },
    { id: "b", name: "delete", arguments: "{}" },
  ],
  stop: "tool_calls",
  approvals: ["a", "b"],
};
const approve = (callId: string) => ({ runId: R, callId, approved: true, by: "ann" });

describe("decide", () => {
  it("refuses a log with a gap, writing nothing, as a resume does", async () => {
    const w = world();
    await w.seed(R, [asking]);
    // seq 3 is missing: a user message stored at seq 4.
    await w.store.append(R, stamp({ type: "user_message", text: "late" }, 4, new Date()));
    const before = await w.log(R);
    const refused = await decide(w.process(), approve("a")).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConflictError);
    expect((refused as Error).message).toMatch(/malformed at seq 3/);
    expect(await w.log(R)).toEqual(before);
  });

  it("records a decision; the last one resumes the run with the approved calls", async () => {
    const w = world();
    await w.seed(R, [asking]);
    expect(await decide(w.process(), approve("a"))).toEqual({ resumed: false, waiting: 1 });
    expect(w.executed).toHaveLength(0);
    const result = await decide(w.process(), approve("b"));
    expect(result).toMatchObject({ resumed: true, generation: 2, kind: "run_tools", opened: true });
    expect(w.executed).toEqual([
      expect.objectContaining({
        generation: 2,
        next: { action: "tools", callIds: ["a", "b"], tools: ["delete", "delete"] },
      }),
    ]);
    const log = await w.log(R);
    expect(log.filter((e) => e.type === "tool_decided")).toHaveLength(2);
    expect(log.at(-1)).toMatchObject({ type: "resumed", generation: 2, by: "person" });
  });

  it("the same decision again records nothing more and completes the resume", async () => {
    const w = world();
    await w.seed(R, [asking]);
    await decide(w.process(), approve("a"));
    w.crash.at = "decide:after-append";
    await expect(decide(w.process(), approve("b"))).rejects.toBeInstanceOf(Crash);
    expect(w.executed).toHaveLength(0);
    const retried = await decide(w.process(), approve("b"));
    expect(retried).toMatchObject({ resumed: true, generation: 2 });
    // The generation it opened runs now: once more answers that generation, never a second one.
    await expect(decide(w.process(), approve("b"))).resolves.toMatchObject({
      resumed: true,
      generation: 2,
      opened: false,
    });
    const log = await w.log(R);
    expect(log.filter((e) => e.type === "tool_decided")).toHaveLength(2);
    expect(log.filter((e) => e.type === "resumed")).toHaveLength(1);
    expect(w.executed).toHaveLength(1);
  }, 10_000);

  it("refuses another verdict on a decided call, and a call that waits for nothing", async () => {
    const w = world();
    await w.seed(R, [asking]);
    const unknown = await decide(w.process(), approve("zzz")).catch((error) => error);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect(unknown.message).toContain("waiting: a, b");
    await decide(w.process(), approve("a"));
    const rejection = decide(w.process(), { ...approve("a"), approved: false });
    await expect(rejection).rejects.toBeInstanceOf(ConflictError);
    // The same verdict by the same person, but another reason: the message says what differs.
    const reasoned = decide(w.process(), { ...approve("a"), reason: "fine" });
    await expect(reasoned).rejects.toThrow(
      'call a was already approved by ann with no reason, and this request gives reason "fine": a decision repeated records nothing more, so repeat it as it was made',
    );
    // For someone else this time: whom it was for is what differs.
    const forOther = decide(w.process(), { ...approve("a"), onBehalfOf: "the-ceo" });
    await expect(forOther).rejects.toThrow(
      'call a was already approved by ann, and this request is for "the-ceo": a decision repeated records nothing more, so repeat it as it was made',
    );
    expect(await w.log(R)).toHaveLength(3);
  });
});
