import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, ROOT, script, tempDataDir, testEnv } from "../support/cli.ts";
import { type Served, serve as serveIn } from "../support/serve.ts";

/** `runlog serve` as a user runs it: a child process, real HTTP, a signal to stop. */
const dir = tempDataDir("http-serve");
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await cleanup(dir);
});

/** `runlog serve --port 0` on this file's data dir, killed after the file if still running. */
async function serve(args: string[] = []): Promise<Served> {
  const served = await serveIn(["--dir", dir, ...args]);
  children.push(served.child);
  return served;
}

async function json(
  served: Served,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await served.fetch(path, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const post = (served: Served, path: string, body: unknown) =>
  json(served, path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** Poll until the run rests; the test's timeout is the only deadline. */
async function rested(served: Served, runId: string): Promise<Record<string, unknown>> {
  for (;;) {
    const { body } = await json(served, `/runs/${runId}`);
    if (body.status !== "running") return (await json(served, `/runs/${runId}`)).body;
    await sleep(25);
  }
}

/** A raw request with a Host header of our choosing, which fetch does not let us set. */
function withHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/runs`, { headers: { host } }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("runlog serve", () => {
  it("runs a run started over HTTP to completion, refuses other hosts, and exits 0 on SIGTERM", async () => {
    const served = await serve();
    expect(served.url).not.toMatch(/:0$/);
    const started = await post(served, `/runs`, {
      agent: "demo",
      input: "Plan my afternoon",
      runId: "served",
    });
    expect(started).toMatchObject({ status: 202, body: { runId: "served" } });
    expect(await rested(served, "served")).toMatchObject({
      status: "completed",
      output: expect.stringContaining("Lisbon"),
    });
    expect((await json(served, `/runs`)).body.runs).toEqual([
      expect.objectContaining({ runId: "served", status: "completed" }),
    ]);

    const rebound = await withHost(served.url, "attacker.example:80");
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ error: { code: "forbidden_host" } });
    const huge = await served.fetch("/runs", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "x".repeat(2 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);

    served.child.kill("SIGTERM");
    expect(await served.exit).toBe(0);
    expect(served.output()).toMatch(/runlog serve: stopped\n/);
  });

  it("on SIGTERM waits for a run under way, which completes before the process exits", async () => {
    const served = await serve(["--allow-scripted"]);
    const model = script(dir, "slow", [{ text: "Slow answer", stop: "stop", delayMs: 500 }]);
    const started = await post(served, `/runs`, {
      agent: "demo",
      input: "take your time",
      runId: "draining",
      model,
    });
    expect(started.status).toBe(202);
    served.child.kill("SIGTERM");
    expect(await served.exit).toBe(0);

    // A fresh server on the same data dir reads the log the first one finished writing.
    const next = await serve();
    expect((await json(next, `/runs/draining`)).body).toMatchObject({
      status: "completed",
      output: "Slow answer",
    });
    next.child.kill("SIGINT");
    expect(await next.exit).toBe(0);
  });

  it("refuses a bad --port with exit 2", async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "bin", "runlog.js"), "serve", "--port", "http", "--dir", dir],
      {
        env: testEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/--port takes a port/);
  });
});
