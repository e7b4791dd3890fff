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

it("runlog serve shows the runs page at the URL it prints, which sets the token's cookie", async () => {
  served = await serve(["--dir", dir]);
  const opened = await fetch(served.opened, { redirect: "manual" });
  expect(opened.status).toBe(303);
  expect(opened.headers.get("location")).toBe("/");
  const cookie = opened.headers.get("set-cookie") ?? "";
  expect(cookie.split(";").map((part) => part.trim())).toEqual(
    expect.arrayContaining([`runlog_token=${served.token}`, "HttpOnly", "SameSite=Strict", "Path=/"]),
  );
  const headers = { cookie: cookie.split(";")[0]! };
  const page = await fetch(`${served.url}/`, { headers });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toMatch(/^text\/html/);
  expect(await page.text()).toContain("<h1>Runs</h1>");
  const script = await fetch(`${served.url}/_viewer/viewer.js`, { headers });
  expect(script.status).toBe(200);
  expect((await fetch(`${served.url}/`)).status).toBe(401);
});
