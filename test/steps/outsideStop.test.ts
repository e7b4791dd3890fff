import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../lib/agents/registry.ts";
import { classify } from "../../lib/core/classify.ts";
import { StaleError } from "../../lib/core/errors.ts";
import type { NewEvent } from "../../lib/core/events.ts";
import { restingStatus } from "../../lib/core/status.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { ExecutionInput } from "../../lib/ports/runtime.ts";
import { modelResolver } from "../../lib/runtime/models.ts";
import { cancelRun } from "../../lib/steps/cancel.ts";
import type { ControlDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { recordOutsideStop } from "../../lib/steps/outsideStop.ts";
import { redrive } from "../../lib/steps/redrive.ts";
import { resumeRun } from "../../lib/steps/resume.ts";
import { sweep } from "../../lib/steps/sweep.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { writeNext } from "../../lib/steps/writeNext.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { recordingOrchestrator } from "../support/controlDeps.ts";
import { connectStore } from "../support/store.ts";
import { failed, startOf, world } from "./generation/harness.ts";

/** A run whose execution (generation 1) was running a tool when it was stopped. */
const midTool: NewEvent[] = [
  {
    type: "model_response",
    text: "",
    toolCalls: [{ id: "c", name: "get_weather", arguments: "{}" }],
    stop: "tool_calls",
  },
  { type: "tool_started", callId: "c", name: "get_weather" },
];
const holder = { owner: "r:g1", state: "ended" as const };
const stopOf = (runId: string, generation = 1) => ({
  runId,
  generation,
  execution: "r-g1",
  error: "Ops",
  cause: "stopped from the console",
});

describe("an execution stopped outside runlog", () => {
  it("is recorded once, and the run shows interrupted with the reason", async () => {
    const w = world();
    await w.seed("r", midTool, holder);
    expect(await recordOutsideStop(w.process(), stopOf("r"))).toBe(true);
    // A second delivery of the same event records nothing more.
    expect(await recordOutsideStop(w.process(), stopOf("r"))).toBe(false);
    const log = await w.log("r");
    expect(log.filter((event) => event.type === "execution_stopped")).toEqual([
      expect.objectContaining({
        generation: 1,
        reason: "execution stopped outside runlog",
        execution: "r-g1",
        cause: "stopped from the console",
      }),
    ]);
    const point = classify(log);
    expect(point).toMatchObject({ resumable: true, kind: "recover_tools" });
    expect(point.description).toMatch(/^execution stopped outside runlog; a person's resume goes on/);
    expect(restingStatus(log, point)).toBe("interrupted");
  });

  it("is left alone by the sweeper and by redrive, and a person's resume goes on", async () => {
    const dataDir = tempDataDir("outside-stop");
    const { store, close } = await connectStore({ dataDir, env: testEnv() });
    try {
      const executed: ExecutionInput[] = [];
      const deps: ControlDeps = {
        store,
        logs: new LogCache(store),
        unstored: unstoredWork(),
        agents: agentRegistry({ dataDir }, BUILT_IN_AGENTS),
        models: modelResolver(),
        // An hour on: every run written here is idle, every lease lapsed.
        clock: { now: () => new Date(Date.now() + 3_600_000) },
        faults: { reached: () => {} },
        orchestrator: recordingOrchestrator(executed),
        leaseMs: 30_000,
      };
      const leave = async (runId: string, events: NewEvent[], status: "running" | "failed") => {
        const first = startOf(runId, new Date());
        await store.createRun(
          { ...first, agent: "demo", model: "scripted:demo" },
          { owner: `${runId}:g1`, until: Date.now() + 30_000 },
        );
        for (const [i, event] of events.entries())
          await store.append(runId, stamp(event, i + 2, new Date(), 1));
        if (status === "failed") await store.setStatus(runId, "failed", events.length + 1);
        expect(await recordOutsideStop(deps, stopOf(runId))).toBe(true);
      };
      await leave("r", midTool, "running");
      await leave("f", [failed], "failed");

      const swept = await sweep(deps, { staleAfterMs: 0, statuses: ["running", "interrupted"] });
      expect(swept.resumed).toEqual([]);
      expect(swept.skipped).toContainEqual({
        runId: "r",
        why: expect.stringMatching(/stopped outside runlog/),
      });
      const head = await store.getHead("r");
      expect(head).toMatchObject({ status: "interrupted" });
      expect(head?.lease).toBeUndefined();
      expect((await redrive(deps, {})).runs).toEqual([
        { runId: "f", outcome: "skipped", why: expect.stringMatching(/stopped outside runlog/) },
      ]);
      expect(executed).toEqual([]);

      const resumed = await resumeRun(deps, { runId: "r", actor: "ann" });
      expect(resumed).toMatchObject({ resumed: true, generation: 2, kind: "recover_tools" });
      expect(executed).toEqual([expect.objectContaining({ runId: "r", generation: 2 })]);
      expect(classify(await store.read("r")).description).not.toMatch(/stopped outside runlog/);
    } finally {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("fences the stopped generation: a step of it still under way writes nothing more", async () => {
    const w = world();
    await w.seed("r", midTool, holder);
    await recordOutsideStop(w.process(), stopOf("r"));
    const late = writeNext(w.process(), "r", 1, () => ({
      append: { type: "tool_result", callId: "c", name: "get_weather", content: "sunny", isError: false },
      result: () => true,
    }));
    await expect(late).rejects.toBeInstanceOf(StaleError);
    expect((await w.log("r")).at(-1)?.type).toBe("execution_stopped");
  });

  it("is not what runlog's own stops are: a cancel, or a generation a resume moved past", async () => {
    const w = world();
    await w.seed("cancelled", midTool, holder);
    await cancelRun(w.process(), { runId: "cancelled", by: "ann" });
    expect(await recordOutsideStop(w.process(), stopOf("cancelled"))).toBe(false);
    expect((await w.log("cancelled")).at(-1)?.type).toBe("cancelled");

    await w.seed("moved", midTool, holder);
    await resumeRun(w.process(), { runId: "moved" });
    expect(await recordOutsideStop(w.process(), stopOf("moved", 1))).toBe(false);
    expect((await w.log("moved")).some((event) => event.type === "execution_stopped")).toBe(false);
  });
});
