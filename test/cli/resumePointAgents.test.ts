import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../lib/cli/main.ts";
import type { NewEvent, RunStarted } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";
import { capturedIo } from "./support.ts";

// A run of an agent of the user's own that stopped inside a tool call: resume-point needs the
// agent's tools (an idempotent one runs again), so without --agents it must say to give them.

const dataDir = tempDataDir("resume-point-agents");
const AT = new Date("2026-01-01T00:00:00.000Z");

beforeAll(async () => {
  const { store, close } = await connectStore({ dataDir, env: testEnv() });
  try {
    const first = { type: "run_started", runId: "in-tool", agent: "oa", model: "scripted:demo", input: "go" };
    await store.createRun(stamp(first as NewEvent, 1, AT) as RunStarted);
    const later: NewEvent[] = [
      {
        type: "model_response",
        text: "",
        toolCalls: [{ id: "c1", name: "lookup", arguments: "{}" }],
        stop: "tool_calls",
      },
      { type: "tool_started", callId: "c1", name: "lookup" },
    ];
    for (const [i, event] of later.entries()) await store.append("in-tool", stamp(event, i + 2, AT, 1));
  } finally {
    await close();
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("runlog resume-point of a run stopped in a tool call, without --agents", () => {
  it("names the unknown agent and the --agents flag", async () => {
    const { io, err } = capturedIo();
    const code = await main(["resume-point", "in-tool", "--dir", dataDir], io, {});
    expect(code).not.toBe(0);
    expect(err.join("\n")).toContain('unknown agent "oa"');
    expect(err.join("\n")).toContain("--agents MODULE");
  });
});
