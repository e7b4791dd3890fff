import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordedLog, replayLog } from "../http/viewerLogs.ts";
import { HOSTILE, writeRuns } from "../http/viewerSupport.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";
import { type Served, serve, stopServed, viewerUrl } from "../support/serve.ts";
import { launchChromium } from "./support/chromium.ts";

/**
 * The compare page as a person reaches it: from a replay's run page, by its link, in Chromium
 * against `runlog serve`. The runs are written to the store before the server starts.
 */
const dir = tempDataDir("browser-compare");
let served: Served;
let browser: Browser;

beforeAll(async () => {
  await writeRuns(
    dir,
    { weather: recordedLog("weather"), "weather.replay-1": replayLog("weather.replay-1", "weather") },
    { weather: { status: "completed" }, "weather.replay-1": { status: "completed" } },
  );
  [served, browser] = await Promise.all([serve(["--dir", dir]), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  stopServed(served);
  await cleanup(dir);
});

describe("the compare page in Chromium", () => {
  it("is reached from the replay's page and shows the differences, the first one highlighted", async () => {
    const page = await browser.newPage();
    await page.goto(viewerUrl(served, "/runs/weather.replay-1/view"));
    await page.getByTestId("compare-link").click();
    await page.waitForURL(/\/runs\/weather\/compare\?with=weather\.replay-1$/);
    expect(await page.locator("h1").textContent()).toBe("Run weather and its replay weather.replay-1");

    const differences = page.getByTestId("differences").locator("li");
    expect(await differences.allTextContents()).toEqual([
      `answer: "Sunny in Faro." -> ${JSON.stringify(`Rain ${HOSTILE}`)}`,
      'tool call arguments changed: get_weather({"city":"Faro"}) -> get_weather({"city":"Lisbon"})',
      'tool call added: get_weather({"city":"Porto"})',
    ]);
    // The first difference's row stands out from a row where nothing differs, and says so.
    const first = page.getByTestId("first-difference-row");
    expect(await first.getAttribute("data-row")).toBe("answer");
    expect(await first.locator("th").textContent()).toContain("first difference");
    // Run in the page (its DOM, not this process's types).
    const background = (selector: string) =>
      page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`);
    expect(await background('tr[data-row="answer"] td[data-side="replayed"]')).not.toBe(
      await background('tr[data-row="status"] td[data-side="replayed"]'),
    );

    // The model's answer is shown as text: nothing in it became an element.
    const answer = page.locator('tr[data-row="answer"] td[data-side="replayed"]');
    expect(await answer.textContent()).toContain(HOSTILE);
    expect(await answer.locator("script, img").count()).toBe(0);

    // Both runs link back to their pages.
    await page.getByTestId("recorded-run").click();
    await page.waitForURL(/\/runs\/weather\/view$/);
    expect(await page.getByTestId("run-status").getAttribute("data-status")).toBe("completed");
    await page.close();
  });
});
