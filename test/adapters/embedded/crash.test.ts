import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { connectStore } from "../../../lib/adapters/dynamodb/connect.ts";
import { stopEmbeddedServer } from "../../../lib/adapters/embedded/index.ts";
import { isAlive } from "../../../lib/adapters/embedded/serverFiles.ts";
import { type RunStarted, stamp } from "../../../lib/core/events.ts";
import { embeddedEnv, runFixture, serverPid, tempDataDir, until } from "./helpers.ts";

const dataDir = tempDataDir("crash");

afterAll(async () => {
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

const acks = (lines: string[]) =>
  lines.filter((line) => line.startsWith("ack ")).map((line) => Number(line.slice(4)));

describe("a server killed with SIGKILL", () => {
  it("loses no acknowledged event, and the next call restarts it", async () => {
    const { store, close } = await connectStore({ dataDir, env: embeddedEnv() });
    try {
      const first = stamp(
        { type: "run_started", runId: "killed", agent: "demo", model: "scripted:demo", input: "x" },
        1,
        new Date(),
      ) as RunStarted;
      await store.createRun(first);
      for (let seq = 2; seq <= 20; seq++)
        await store.append("killed", stamp({ type: "user_message", text: `#${seq}` }, seq, new Date()));
      const victim = serverPid(dataDir)!;
      process.kill(victim, "SIGKILL");
      await until(() => !isAlive(victim));

      const events = await store.read("killed");
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(serverPid(dataDir)).not.toBe(victim);
    } finally {
      await close();
    }
  });

  it("while another process is writing: every acknowledged event survives and the writer carries on", async () => {
    const count = 300;
    const writer = runFixture("appender.ts", [dataDir, "busy", String(count)], embeddedEnv());
    await until(() => acks(writer.lines).length >= 30);
    expect(writer.lines.some((line) => line.startsWith("done"))).toBe(false); // killed mid-run, not after
    const victim = serverPid(dataDir)!;
    process.kill(victim, "SIGKILL");

    const { code, stderr } = await writer.exit;
    expect(code, stderr).toBe(0);
    expect(acks(writer.lines)).toEqual(Array.from({ length: count }, (_, i) => i + 2));
    const { store, close } = await connectStore({ dataDir, env: embeddedEnv() });
    try {
      const events = await store.read("busy");
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: count + 1 }, (_, i) => i + 1));
      for (const event of events.slice(1)) expect(event).toMatchObject({ text: `busy #${event.seq}` });
    } finally {
      await close();
    }
  });
});
