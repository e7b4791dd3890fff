import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { openLocal } from "../../lib/api/local.ts";
import { replayRuns, scriptFromRun } from "../../lib/api/replay.ts";
import { compareRuns } from "../../lib/api/replayCompare.ts";
import { canonicalJson } from "../../lib/core/canonicalJson.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../../lib/core/errors.ts";
import { toolCallsOf } from "../../lib/core/replay.ts";
import { defineAgent, defineTool } from "../../lib/index.ts";
import { tempDataDir } from "../support/cli.ts";

// The demo agent: get_weather is pure, write_note appends a line to notes.txt (a side effect to count).
let dir: string;
const notes = () => {
  try {
    return readFileSync(join(dir, "notes.txt"), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};
const spec = (name: string, turns: unknown[]) => {
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return `scripted:${path}`;
};
const storedJson = async (runIds: string[]) => {
  const local = await openLocal({ dataDir: dir });
  try {
    const all = await Promise.all(runIds.map((id) => local.runlog.events(id)));
    return all.map((events) => events.map(canonicalJson).join("\n"));
  } finally {
    await local.close();
  }
};

beforeAll(async () => {
  dir = tempDataDir("replay-api");
  const local = await openLocal({ dataDir: dir });
  try {
    await local.runlog.start({ agent: "demo", input: "plan my day", model: "scripted:demo", runId: "day" });
    // A run given a second message later: its replay is given both, in order.
    const two = spec("two", [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Porto" } }] },
      { text: "Porto is fine." },
      { toolCalls: [{ name: "write_note", arguments: { text: "umbrella" } }] },
      { text: "Noted." },
    ]);
    await local.runlog.start({ agent: "demo", input: "weather?", model: two, runId: "two" });
    await local.runlog.send("two", "note it");
  } finally {
    await local.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("scriptFromRun", () => {
  it("plays the run again: the same tool calls with the same arguments and the same answer", async () => {
    const local = await openLocal({ dataDir: dir });
    try {
      for (const runId of ["day", "two"]) {
        const original = await local.runlog.events(runId);
        const model = spec(`${runId}-exported`, (await scriptFromRun(local.runlog, runId)).turns);
        const again = await local.runlog.start({
          agent: "demo",
          input: original[0]!.type === "run_started" ? original[0]!.input : "",
          model,
        });
        if (runId === "two") await local.runlog.send(again.runId, "note it");
        const replayed = await local.runlog.events(again.runId);
        expect(toolCallsOf(replayed)).toEqual(toolCallsOf(original));
        expect((await local.runlog.outcome(again.runId)).output).toBe(
          (await local.runlog.outcome(runId)).output,
        );
      }
    } finally {
      await local.close();
    }
  });
});

describe("replayRuns", () => {
  it("reports no change on the same model and runs no tool again; the originals are untouched", async () => {
    const before = await storedJson(["day", "two"]);
    const notesBefore = notes().length;
    const model = spec("same-day", [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] },
      {
        toolCalls: [
          { name: "write_note", arguments: { text: "Pack sunglasses" } },
          { name: "write_note", arguments: { text: "Book a table by the river" } },
        ],
      },
      {
        text:
          "I checked today's weather in Lisbon and wrote down two things for your day out: " +
          "pack sunglasses, and book a table by the river.",
      },
    ]);
    const report = await replayRuns({ dataDir: dir, runIds: ["day"], model });
    expect(report.changed).toBe(0);
    expect(report.runs[0]).toMatchObject({ runId: "day", changed: false, differences: [] });
    expect(report.runs[0]!.replayRunId).toMatch(/^day\.replay-[0-9a-f]{8}$/);
    expect(notes().length).toBe(notesBefore);
    expect(await storedJson(["day", "two"])).toEqual(before);
    const local = await openLocal({ dataDir: dir });
    try {
      const [started] = await local.runlog.events(report.runs[0]!.replayRunId);
      expect(started).toMatchObject({ type: "run_started", metadata: { replayOf: "day" } });
    } finally {
      await local.close();
    }
  });

  it("names the changed answer, the removed tool call and the changed arguments", async () => {
    const notesBefore = notes().length;
    const model = spec("changed-day", [
      { toolCalls: [{ name: "get_weather", arguments: { city: "Lisboa" } }] },
      { toolCalls: [{ name: "write_note", arguments: { text: "Pack sunglasses" } }] },
      { text: "Have a nice day." },
    ]);
    const report = await replayRuns({ dataDir: dir, runIds: ["day"], model });
    expect(report.changed).toBe(1);
    const { differences } = report.runs[0]!;
    expect(differences).toContainEqual({
      what: "answer",
      recorded: expect.stringContaining("I checked today's weather"),
      replayed: "Have a nice day.",
    });
    expect(differences).toContainEqual({
      what: "tool_call_arguments",
      recorded: { name: "get_weather", arguments: '{"city":"Lisbon"}' },
      replayed: { name: "get_weather", arguments: '{"city":"Lisboa"}' },
    });
    expect(differences).toContainEqual({
      what: "tool_call_removed",
      recorded: { name: "write_note", arguments: '{"text":"Book a table by the river"}' },
      replayed: null,
    });
    expect(differences.map((d) => d.what)).toHaveLength(3);
    // Lisboa is not in the recording: the call was answered with an error, not run.
    expect(notes().length).toBe(notesBefore);
  });

  it("gives a replay every user input of its run, in order", async () => {
    const local = await openLocal({ dataDir: dir });
    const exported = await scriptFromRun(local.runlog, "two").finally(() => local.close());
    const report = await replayRuns({
      dataDir: dir,
      runIds: ["two"],
      model: spec("two-exported", exported.turns),
    });
    expect(report.runs[0]).toMatchObject({
      changed: false,
      figures: { recorded: { turns: 4 }, replayed: { turns: 4 } },
    });
  });

  it("with live tools runs them again", async () => {
    const before = notes().length;
    const report = await replayRuns({ dataDir: dir, runIds: ["day"], model: "scripted:demo", tools: "live" });
    expect(report.changed).toBe(0);
    expect(notes().length).toBe(before + 2);
  });

  it("runs at most `concurrency` replays at once", async () => {
    // A live tool that waits a little and counts the calls in flight: each replay makes one call at a time.
    let inFlight = 0;
    let most = 0;
    const agents = {
      slow: defineAgent({
        name: "slow",
        instructions: "Wait.",
        model: "scripted:demo",
        tools: [
          defineTool({
            name: "pause",
            description: "Pause.",
            parameters: z.object({}),
            run: async () => {
              most = Math.max(most, ++inFlight);
              await new Promise((resolve) => setTimeout(resolve, 30));
              inFlight--;
              return "paused";
            },
          }),
        ],
      }),
    };
    const model = spec("pause", [{ toolCalls: [{ name: "pause", arguments: {} }] }, { text: "done" }]);
    const local = await openLocal({ dataDir: dir, agents });
    try {
      for (const runId of ["p1", "p2", "p3", "p4"])
        await local.runlog.start({ agent: "slow", input: "wait", model, runId });
    } finally {
      await local.close();
    }
    for (const concurrency of [1, 2]) {
      most = 0;
      const ends: number[] = [];
      const report = await replayRuns({
        dataDir: dir,
        agents,
        runIds: ["p1", "p2", "p3", "p4"],
        model,
        tools: "live",
        concurrency,
        onProgress: (_, done) => ends.push(done),
      });
      expect(report.changed).toBe(0);
      expect(most).toBeLessThanOrEqual(concurrency);
      expect(ends).toEqual([1, 2, 3, 4]);
    }
  });

  it("starts nothing when a run is unknown or the model spec is bad", async () => {
    const count = async () => {
      const local = await openLocal({ dataDir: dir });
      try {
        return (await local.runlog.list({})).runs.length;
      } finally {
        await local.close();
      }
    };
    const runs = await count();
    await expect(
      replayRuns({ dataDir: dir, runIds: ["day", "nope"], model: "scripted:demo" }),
    ).rejects.toThrow(NotFoundError);
    await expect(
      replayRuns({ dataDir: dir, runIds: ["day"], model: `scripted:${join(dir, "missing.json")}` }),
    ).rejects.toThrow(/cannot read script/);
    await expect(replayRuns({ dataDir: dir, runIds: [], model: "scripted:demo" })).rejects.toThrow(/runIds/);
    expect(await count()).toBe(runs);
  });
});

describe("replaying a fork", () => {
  it("given its input mid-batch, replays it from the same point: its own script reproduces it", async () => {
    const local = await openLocal({ dataDir: dir });
    let exported: string;
    try {
      // Two calls asked at once; the fork is made after the first one's result, the second not run.
      const both = spec("both", [
        {
          toolCalls: [
            { name: "get_weather", arguments: { city: "Porto" } },
            { name: "write_note", arguments: { text: "coat" } },
          ],
        },
        { text: "Noted." },
      ]);
      await local.runlog.start({ agent: "demo", input: "weather and note", model: both, runId: "both" });
      const log = await local.runlog.events("both");
      expect(log.slice(0, 4).map((e) => e.type)).toEqual([
        "run_started",
        "model_response",
        "tool_started",
        "tool_result",
      ]);
      const other = spec("other", [
        { toolCalls: [{ name: "get_weather", arguments: { city: "Faro" } }] },
        { text: "Faro is fine." },
      ]);
      await local.runlog.fork({
        runId: "both",
        atSeq: 4,
        input: "Faro instead",
        model: other,
        forkId: "both-fork",
      });
      await local.runlog.send("both-fork", "thanks");
      exported = spec("both-fork-exported", [...(await scriptFromRun(local.runlog, "both-fork")).turns]);
    } finally {
      await local.close();
    }
    const notesBefore = notes().length;
    const report = await replayRuns({ dataDir: dir, runIds: ["both-fork"], model: exported });
    expect(report.runs[0]).toMatchObject({ runId: "both-fork", changed: false, differences: [] });
    expect(report.runs[0]!.error).toBeUndefined();
    expect(notes().length).toBe(notesBefore);
    const after = await openLocal({ dataDir: dir });
    try {
      const [started] = await after.runlog.events(report.runs[0]!.replayRunId);
      expect(started).toMatchObject({ type: "run_started", parent: { runId: "both-fork", seq: 4 } });
      // A batch replays from the first input, which would not reproduce it: refused, naming it.
      const refused = after.runlog.startReplays({ runIds: ["both-fork"], model: exported });
      await expect(refused).rejects.toThrow(InvalidInputError);
      await expect(refused).rejects.toMatchObject({ runId: "both-fork", field: "runIds" });
    } finally {
      await after.close();
    }
  });
});

describe("replaying a fork of a fork given its input mid-turn", () => {
  it("replays it from that point too, as it replays that fork; a batch refuses it as it refuses that fork", async () => {
    const local = await openLocal({ dataDir: dir });
    const scripts: Record<string, string> = {};
    try {
      const first = spec("mid", [
        { toolCalls: [{ name: "get_weather", arguments: { city: "Porto" } }] },
        { text: "Porto is fine." },
      ]);
      await local.runlog.start({ agent: "demo", input: "weather?", model: first, runId: "mid" });
      // Forked after get_weather started, before its result: the input comes mid-turn.
      expect((await local.runlog.events("mid"))[2]).toMatchObject({ type: "tool_started" });
      await local.runlog.fork({ runId: "mid", atSeq: 3, input: "Faro instead", forkId: "mid-fork" });
      // A plain copy of that fork, and a fork of it given an input where it rests (a final answer).
      await local.runlog.fork({ runId: "mid-fork", forkId: "mid-copy" });
      const more = spec("mid-more", [
        { toolCalls: [{ name: "get_weather", arguments: { city: "Porto" } }] },
        { text: "Porto is fine." },
        { text: "Faro is sunny too." },
      ]);
      await local.runlog.fork({ runId: "mid-fork", input: "and Faro?", model: more, forkId: "mid-more" });
      for (const runId of ["mid-copy", "mid-more"]) {
        expect((await local.runlog.outcome(runId)).status).toBe("completed");
        scripts[runId] = spec(`${runId}-exported`, (await scriptFromRun(local.runlog, runId)).turns);
      }
    } finally {
      await local.close();
    }
    for (const runId of ["mid-copy", "mid-more"]) {
      const report = await replayRuns({ dataDir: dir, runIds: [runId], model: scripts[runId]! });
      expect(report.runs[0], runId).toMatchObject({ runId, changed: false, differences: [] });
      const after = await openLocal({ dataDir: dir });
      try {
        const [started] = await after.runlog.events(report.runs[0]!.replayRunId);
        expect(started).toMatchObject({ type: "run_started", parent: { runId, seq: 3 } });
        const refused = after.runlog.startReplays({ runIds: [runId], model: scripts[runId]! });
        await expect(refused).rejects.toThrow(InvalidInputError);
        await expect(refused).rejects.toMatchObject({ runId, field: "runIds", seq: 4 });
      } finally {
        await after.close();
      }
    }
  });
});

describe("replaying a run that is still running", () => {
  it("is refused with a ConflictError naming it, and nothing is replayed", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered!: () => void;
    const waiting = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const agents = {
      gated: defineAgent({
        name: "gated",
        instructions: "Wait.",
        model: "scripted:demo",
        tools: [
          defineTool({
            name: "hold",
            description: "Hold.",
            parameters: z.object({}),
            run: async () => {
              entered();
              await gate;
              return "held";
            },
          }),
        ],
      }),
    };
    const model = spec("hold", [{ toolCalls: [{ name: "hold", arguments: {} }] }, { text: "done" }]);
    const local = await openLocal({ dataDir: dir, agents });
    try {
      const running = local.runlog.start({ agent: "gated", input: "hold", model, runId: "held" });
      await waiting;
      const replaying = replayRuns({ dataDir: dir, agents, runIds: ["held"], model });
      await expect(replaying).rejects.toThrow(ConflictError);
      await expect(replaying).rejects.toMatchObject({
        runId: "held",
        message: expect.stringMatching(/run held is still running/),
      });
      release();
      await running;
      expect((await local.runlog.list({})).runs.filter((r) => r.runId.startsWith("held.replay-"))).toEqual(
        [],
      );
    } finally {
      release();
      await local.close();
    }
    const report = await replayRuns({ dataDir: dir, agents, runIds: ["held"], model });
    expect(report.runs[0]).toMatchObject({ changed: false, differences: [] });
  });

  it("compares with the one log it read: status and answer from those events, not read again", async () => {
    const local = await openLocal({ dataDir: dir });
    try {
      const log = await local.runlog.events("day");
      // The log as a reader saw it mid-run: the first turn asked for a tool, no answer yet.
      const early = log.slice(0, 2);
      const { summaries } = await compareRuns(local.runlog, "day", "day", undefined, { recorded: early });
      expect(summaries.recorded).toMatchObject({ answer: null, turns: 1 });
      expect(summaries.recorded.status).not.toBe("completed");
      expect(summaries.replayed).toMatchObject({ status: "completed", turns: 3 });
    } finally {
      await local.close();
    }
  });
});
