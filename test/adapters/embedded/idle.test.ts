import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectStore } from "../../../lib/adapters/dynamodb/connect.ts";
import { stopEmbeddedServer } from "../../../lib/adapters/embedded/index.ts";
import { isAlive } from "../../../lib/adapters/embedded/serverFiles.ts";
import { type RunStarted, stamp } from "../../../lib/core/events.ts";
import { embeddedEnv, serverPid, tempDataDir, until } from "./helpers.ts";

const dataDir = tempDataDir("idle");
const env = embeddedEnv({ RUNLOG_SERVER_IDLE_MS: "300", RUNLOG_SERVER_GRACE_MS: "100" });

afterAll(async () => {
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

const first = (runId: string) =>
  stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "x" },
    1,
    new Date(),
  ) as RunStarted;

describe("the embedded server going away between calls", () => {
  it("stops when idle, withdrawing server.json, and the next call transparently starts a new one", async () => {
    const { store, close } = await connectStore({ dataDir, env });
    try {
      await store.createRun(first("idle-1"));
      const before = serverPid(dataDir)!;
      await until(() => !isAlive(before));
      expect(existsSync(join(dataDir, "server.json"))).toBe(false);
      expect(readFileSync(join(dataDir, "server.log"), "utf8")).toMatch(
        /stopping \(idle\)[\s\S]*database closed/,
      );

      expect(await store.read("idle-1")).toEqual([expect.objectContaining({ runId: "idle-1", seq: 1 })]);
      const after = serverPid(dataDir);
      expect(after).toBeDefined();
      expect(after).not.toBe(before);
    } finally {
      await close();
    }
  });

  it("stops cleanly on SIGTERM (stopEmbeddedServer), and the next write restarts it", async () => {
    const { store, close } = await connectStore({ dataDir, env: embeddedEnv() });
    try {
      await store.createRun(first("term-1"));
      const before = serverPid(dataDir)!;
      await stopEmbeddedServer(dataDir);
      expect(isAlive(before)).toBe(false);
      expect(existsSync(join(dataDir, "server.json"))).toBe(false);
      expect(readFileSync(join(dataDir, "server.log"), "utf8")).toMatch(
        /stopping \(SIGTERM\)[\s\S]*database closed/,
      );

      await store.append("term-1", stamp({ type: "user_message", text: "after" }, 2, new Date()));
      expect((await store.read("term-1")).map((e) => e.seq)).toEqual([1, 2]);
      expect(serverPid(dataDir)).not.toBe(before);
    } finally {
      await close();
    }
  });
});
