import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { connectStore } from "../../../lib/adapters/dynamodb/connect.ts";
import { stopEmbeddedServer } from "../../../lib/adapters/embedded/index.ts";
import { embeddedEnv, runFixture, serverPid, tempDataDir } from "./helpers.ts";

const dataDir = tempDataDir("multi");

afterAll(async () => {
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("one data dir, several processes", () => {
  it("concurrent processes (killed right after) all append, through one server, and lose nothing", async () => {
    const runs = ["p0", "p1", "p2", "p3"];
    const count = 25;
    // No server yet: every process races to start one.
    const processes = runs.map((runId) =>
      runFixture("appender.ts", [dataDir, runId, String(count), "137"], embeddedEnv()),
    );
    const exits = await Promise.all(processes.map((p) => p.exit));
    for (const { code, stderr } of exits) expect(code, stderr).toBe(137);

    const reported = processes.map((p) => p.lines.find((line) => line.startsWith("done "))?.slice(5));
    expect(new Set(reported).size).toBe(1);
    expect(Number(reported[0])).toBe(serverPid(dataDir));

    const { store, close } = await connectStore({ dataDir, env: embeddedEnv() });
    try {
      for (const runId of runs) {
        const events = await store.read(runId);
        expect(events.map((e) => e.seq)).toEqual(Array.from({ length: count + 1 }, (_, i) => i + 1));
        expect(events.at(-1)).toMatchObject({ type: "user_message", text: `${runId} #${count + 1}` });
      }
    } finally {
      await close();
    }
  });
});
