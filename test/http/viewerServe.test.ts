import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { cleanup, ROOT, tempDataDir, testEnv } from "../support/cli.ts";

/** `runlog serve` turns the viewer on: its address answers the runs page. */
const dir = tempDataDir("http-viewer-serve");
let child: ChildProcess | undefined;
afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await cleanup(dir);
});

/** Start `runlog serve --port 0` and resolve with the address it prints. */
function serve(): Promise<string> {
  child = spawn(process.execPath, [join(ROOT, "bin", "runlog.js"), "serve", "--port", "0", "--dir", dir], {
    env: testEnv(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  return new Promise((resolve, reject) => {
    child!.stdout?.on("data", (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child!.on("exit", (code) => reject(new Error(`runlog serve exited ${code}:\n${stdout}`)));
  });
}

it("runlog serve shows the runs page at its address, with its script", async () => {
  const url = await serve();
  const page = await fetch(`${url}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await page.text()).toContain("<h1>Runs</h1>");
  const script = await fetch(`${url}/_viewer/viewer.js`);
  expect(script.status).toBe(200);
  child!.kill("SIGTERM");
});
