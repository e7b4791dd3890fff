import { readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectStore } from "../../../lib/adapters/dynamodb/connect.ts";
import { ensureEmbeddedServer, stopEmbeddedServer } from "../../../lib/adapters/embedded/index.ts";
import { isAlive } from "../../../lib/adapters/embedded/serverFiles.ts";
import { type RunStarted, stamp } from "../../../lib/core/events.ts";
import { embeddedEnv, serverPid, tempDataDir, until } from "./helpers.ts";

const dataDir = tempDataDir("server");

afterAll(async () => {
  await stopEmbeddedServer(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the embedded server process", () => {
  it("survives a client that dies halfway through sending a request", async () => {
    const { endpoint } = await ensureEmbeddedServer(dataDir, { env: embeddedEnv() });
    const pid = serverPid(dataDir)!;
    const socket = connect(Number(new URL(endpoint).port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    const partial =
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 1000\r\n\r\n{";
    await new Promise<void>((resolve) => socket.write(partial, () => resolve()));
    socket.destroy();
    const log = () => readFileSync(join(dataDir, "server.log"), "utf8");
    await until(() => /request dropped|crashed/.test(log()));

    expect(log()).not.toMatch(/crashed/);
    expect(isAlive(pid)).toBe(true);
    const { store, close } = await connectStore({ dataDir, env: embeddedEnv() });
    try {
      const first = stamp(
        { type: "run_started", runId: "after-abort", agent: "demo", model: "scripted:demo", input: "x" },
        1,
        new Date(),
      ) as RunStarted;
      await store.createRun(first);
      expect(await store.read("after-abort")).toEqual([first]);
      expect(serverPid(dataDir)).toBe(pid);
    } finally {
      await close();
    }
  });
});
