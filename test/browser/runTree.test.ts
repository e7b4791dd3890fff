import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childLog, parentLog, transferredLog } from "../http/viewerLogs.ts";
import { writeRuns } from "../http/viewerSupport.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";
import { type Served, serve, stopServed, viewerUrl } from "../support/serve.ts";
import { launchChromium } from "./support/chromium.ts";

/**
 * A run tree as a person walks it in Chromium against `runlog serve`: a parent waiting on its
 * sub-agent's run, down to the child and back up. The runs are written before the server starts.
 */
const dir = tempDataDir("browser-run-tree");
let served: Served;
let browser: Browser;

beforeAll(async () => {
  await writeRuns(
    dir,
    {
      boss: parentLog("boss", "boss.researcher"),
      "boss.researcher": childLog("boss.researcher", "boss"),
      handed: transferredLog("handed"),
    },
    {
      boss: { status: "waiting" },
      "boss.researcher": { status: "completed" },
      handed: { status: "completed", agent: "billing" },
    },
  );
  [served, browser] = await Promise.all([serve(["--dir", dir]), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  stopServed(served);
  await cleanup(dir);
});

describe("the run tree in Chromium", () => {
  it("shows a waiting parent's child and what it waits for, and links child and parent both ways", async () => {
    const page = await browser.newPage();
    await page.goto(viewerUrl(served, "/runs/boss/view"));
    expect(await page.getByTestId("run-status").getAttribute("data-status")).toBe("waiting");
    expect(await page.getByTestId("waiting-for").textContent()).toBe(
      "sub-agent run boss.researcher (call ask_researcher, call_ask)",
    );
    const child = page.getByTestId("child");
    expect(await child.count()).toBe(1);
    expect(await child.getByTestId("child-status").textContent()).toBe("completed");

    await child.getByTestId("child-link").click();
    await page.waitForURL(/\/runs\/boss\.researcher\/view$/);
    expect(await page.getByTestId("agent").textContent()).toBe("researcher");
    expect(await page.getByTestId("children").count()).toBe(0);
    await page.getByTestId("parent-run").click();
    await page.waitForURL(/\/runs\/boss\/view$/);
    expect(await page.getByTestId("waiting-child").textContent()).toBe("boss.researcher");
    await page.close();
  });

  it("lists a transferred run under the agent in charge, and its page says what it started as", async () => {
    const page = await browser.newPage();
    await page.goto(viewerUrl(served, "/"));
    const row = page.locator('[data-testid="run-row"][data-run-id="handed"]');
    expect(await row.locator("td").allTextContents()).toEqual(
      expect.arrayContaining(["billing", "scripted:billing"]),
    );
    await row.getByRole("link", { name: "handed" }).click();
    await page.waitForURL(/\/runs\/handed\/view$/);
    expect(await page.getByTestId("agent").textContent()).toBe("billing");
    expect(await page.getByTestId("started-as").textContent()).toBe("(started as triage)");
    await page.close();
  });
});
