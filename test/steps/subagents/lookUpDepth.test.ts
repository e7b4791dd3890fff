import { afterAll, describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../../lib/agents/builtIn.ts";
import { agentRegistry } from "../../../lib/agents/registry.ts";
import { ConflictError } from "../../../lib/core/errors.ts";
import type { NewEvent, RunEvent, RunStarted } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";
import { MAX_SUBAGENT_DEPTH } from "../../../lib/core/subagents.ts";
import type { EventStore } from "../../../lib/ports/eventStore.ts";
import type { ControlDeps } from "../../../lib/steps/deps.ts";
import { LogCache } from "../../../lib/steps/logCache.ts";
import { resumeRun } from "../../../lib/steps/resume.ts";
import { unstoredWork } from "../../../lib/steps/unstoredWork.ts";
import { cleanup, tempDataDir, testEnv } from "../../support/cli.ts";
import { modelsNeverCalled, recordingOrchestrator } from "../../support/controlDeps.ts";
import { connectStore } from "../../support/store.ts";

/**
 * A resume of the run at the top of a tree of sub-agent runs looks the tree up as deep as any tool
 * lets runs nest (MAX_SUBAGENT_DEPTH). A deeper tree, made before nesting was bounded, is not looked
 * up past that in silence: the resume says which runs it did not look into.
 */

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
  for (const dir of dirs) await cleanup(dir);
});

async function freshStore(): Promise<EventStore> {
  const dir = tempDataDir("lookup-depth");
  dirs.push(dir);
  const { store, close } = await connectStore({ dataDir: dir, env: testEnv() });
  closers.push(close);
  return store;
}

function depsOn(store: EventStore): ControlDeps {
  return {
    store,
    logs: new LogCache(store),
    unstored: unstoredWork(),
    agents: agentRegistry({ dataDir: "unused" }, BUILT_IN_AGENTS),
    models: modelsNeverCalled,
    clock: { now: () => new Date() },
    faults: { reached: () => {} },
    orchestrator: recordingOrchestrator(),
    leaseMs: 30_000,
  };
}

/** The run `depth` levels down a chain from `root`: root, root.c, root.c.c … */
const runAt = (root: string, depth: number) => [root, ...Array(depth).fill("c")].join(".");

/**
 * A chain of `levels` + 1 runs, each waiting for its one sub-agent call's child, as an agent that
 * called itself left it; the deepest has answered (its parent not told yet), or waits for a decision.
 */
async function chainOf(
  store: EventStore,
  root: string,
  levels: number,
  deepest: "answered" | "undecided",
): Promise<void> {
  for (let depth = 0; depth <= levels; depth++) {
    const runId = runAt(root, depth);
    const first: NewEvent = {
      type: "run_started",
      runId,
      agent: "demo",
      model: "scripted:demo",
      input: "go",
      ...(depth === 0 ? {} : { parent: { runId: runAt(root, depth - 1), callId: "c" } }),
    };
    const call = { id: "c", name: "again", arguments: '{"input":"deeper"}' };
    const rest: NewEvent[] =
      depth < levels
        ? [
            {
              type: "model_response",
              text: "",
              toolCalls: [call],
              stop: "tool_calls",
              model: "scripted:demo",
            },
            { type: "tool_started", callId: "c", name: "again", child: runAt(root, depth + 1) },
          ]
        : deepest === "answered"
          ? [{ type: "model_response", text: "bottom", toolCalls: [], stop: "stop", model: "scripted:demo" }]
          : [
              {
                type: "model_response",
                text: "",
                toolCalls: [call],
                stop: "tool_calls",
                approvals: ["c"],
                model: "scripted:demo",
              },
            ];
    const events: RunEvent[] = [first, ...rest].map((event, i) => stamp(event, i + 1, new Date(), 1));
    await store.createRun(events[0] as RunStarted);
    for (const event of events.slice(1)) await store.append(runId, event);
  }
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("resuming the top of a tree of sub-agent runs", () => {
  it("looks up a tree as deep as sub-agent runs may nest, down to its deepest run", async () => {
    const store = await freshStore();
    await chainOf(store, "ok", MAX_SUBAGENT_DEPTH, "answered");
    const resumed = await resumeRun(depsOn(store), { runId: "ok" });
    expect(resumed).toMatchObject({ resumed: false, classification: { reason: "awaiting_children" } });
    // The deepest run's answer reached its parent, which was resumed to go on from it.
    const above = await store.read(runAt("ok", MAX_SUBAGENT_DEPTH - 1));
    expect(above.slice(-2)).toMatchObject([
      { type: "tool_result", callId: "c", content: "bottom", isError: false },
      { type: "resumed", by: "subagent" },
    ]);
  });

  it("names the runs it did not look into in a deeper tree, never stopping in silence", async () => {
    const store = await freshStore();
    await chainOf(store, "deep", 70, "undecided");
    const refused = await rejection(resumeRun(depsOn(store), { runId: "deep" }));
    expect(refused).toBeInstanceOf(ConflictError);
    const first = runAt("deep", MAX_SUBAGENT_DEPTH);
    expect(refused).toMatchObject({ runId: first });
    expect((refused as Error).message).toContain(`${first} (and the runs below) were not looked up`);
  });
});
