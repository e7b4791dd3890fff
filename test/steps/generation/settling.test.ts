import { describe, expect, it } from "vitest";
import { LeaseHeldError } from "../../../lib/core/errors.ts";
import { resumeRun } from "../../../lib/steps/resume.ts";
import { answered, world } from "./harness.ts";

/**
 * A run whose log has come to rest while its execution still holds the lease (between the final
 * answer's append and Finish letting go): what outcome() already answers as completed. A message
 * sent on that answer waits for the execution to let go, instead of being refused as a run that is
 * being executed; a run still executing is refused as before.
 */
describe("a message to a run whose execution is finishing", () => {
  it("waits for the execution to let the run go, then opens the next generation", async () => {
    const w = world();
    await w.seed("done", [answered], { owner: "done:g1", state: "running" });
    // Finish, a moment later: the head rests and the lease goes.
    setTimeout(() => {
      void w.store.releaseLease("done", "done:g1", { status: "completed", lastSeq: 2 });
      w.executions.set("done:g1", "ended");
    }, 30);
    const sent = await resumeRun(w.process(), { runId: "done", input: "and then?" });
    expect(sent).toMatchObject({ resumed: true });
    expect(w.executed.map((input) => input.generation)).toEqual([2]);
    expect((await w.log("done")).at(-1)).toMatchObject({
      type: "resumed",
      generation: 2,
      input: "and then?",
    });
  });

  it("a run whose log has not come to rest is being executed: refused at once, nothing written", async () => {
    const w = world();
    const midTool = {
      type: "model_response" as const,
      text: "",
      toolCalls: [{ id: "c", name: "get_weather", arguments: "{}" }],
      stop: "tool_calls" as const,
    };
    await w.seed("busy", [midTool], { owner: "busy:g1", state: "running" });
    await expect(resumeRun(w.process(), { runId: "busy", input: "hurry" })).rejects.toBeInstanceOf(
      LeaseHeldError,
    );
    expect(await w.log("busy")).toHaveLength(2);
    expect(w.executed).toEqual([]);
  });
});
