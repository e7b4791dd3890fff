import { afterAll, expect, it } from "vitest";
import { cleanup, tempDataDir } from "../support/cli.ts";
import { type Served, serve, stopServed } from "../support/serve.ts";

/** `runlog serve` turns the viewer on: its address answers the runs page. */
const dir = tempDataDir("http-viewer-serve");
let served: Served | undefined;
afterAll(async () => {
  stopServed(served);
  await cleanup(dir);
});

it("runlog serve shows the runs page at its address, with its script", async () => {
  served = await serve(["--dir", dir]);
  const page = await fetch(`${served.url}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await page.text()).toContain("<h1>Runs</h1>");
  const script = await fetch(`${served.url}/_viewer/viewer.js`);
  expect(script.status).toBe(200);
});
