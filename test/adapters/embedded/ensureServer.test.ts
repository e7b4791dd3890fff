import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureEmbeddedServer, stopEmbeddedServer } from "../../../lib/adapters/embedded/index.ts";
import { isAlive } from "../../../lib/adapters/embedded/serverFiles.ts";
import { RetryableError } from "../../../lib/core/errors.ts";
import { embeddedEnv, serverPid, tempDataDir } from "./helpers.ts";

const dirs: string[] = [];
const dir = (label: string) => {
  const made = tempDataDir(label);
  dirs.push(made);
  return made;
};

afterAll(async () => {
  for (const made of dirs) {
    await stopEmbeddedServer(made);
    rmSync(made, { recursive: true, force: true });
  }
});

/** The pid of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

describe("ensureEmbeddedServer", () => {
  it("has concurrent callers converge on one live server", async () => {
    const dataDir = dir("converge");
    const results = await Promise.all(
      Array.from({ length: 8 }, () => ensureEmbeddedServer(dataDir, { env: embeddedEnv() })),
    );
    expect(new Set(results.map((r) => r.endpoint)).size).toBe(1);
    expect(results[0]!.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(isAlive(serverPid(dataDir)!)).toBe(true);
  });

  it("is not blocked by a server.json and a start lock left by dead processes", async () => {
    const dataDir = dir("stale");
    const dead = deadPid();
    expect(isAlive(dead)).toBe(false);
    writeFileSync(join(dataDir, "server.json"), JSON.stringify({ pid: dead, port: 1, startedAt: "then" }));
    writeFileSync(join(dataDir, "server.lock"), String(dead));
    const { endpoint } = await ensureEmbeddedServer(dataDir, { env: embeddedEnv() });
    const pid = serverPid(dataDir)!;
    expect(pid).not.toBe(dead);
    expect(isAlive(pid)).toBe(true);
    expect(endpoint).not.toBe("http://127.0.0.1:1");
  });

  it("fails clearly, naming the server log, when the server cannot open its database", async () => {
    const dataDir = dir("broken");
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "db"), "not a directory");
    const failure = ensureEmbeddedServer(dataDir, { env: embeddedEnv(), timeoutMs: 20_000 });
    await expect(failure).rejects.toBeInstanceOf(RetryableError);
    await expect(failure).rejects.toThrow(join(dataDir, "server.log"));
    await expect(failure).rejects.toThrow(/cannot open/);
  });

  it("stopEmbeddedServer is a no-op when no server runs", async () => {
    await expect(stopEmbeddedServer(dir("none"))).resolves.toBeUndefined();
  });
});
