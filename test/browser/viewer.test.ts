import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanup, killedMidWait, runlog, tempDataDir } from "../support/cli.ts";
import { type Served, serve, stopServed, viewerUrl } from "../support/serve.ts";
import { launchChromium } from "./support/chromium.ts";
import { approveElsewhere, settled, startRun } from "./support/runs.ts";

/**
 * The run viewer as a person uses it: `runlog serve` in a child process, its pages in Chromium.
 * Runs are started through the JSON API (as another tab or a backend would) and steered from the
 * page; every check is on what the page shows, and the page is never reloaded by the test where
 * an update must arrive live.
 */
const dir = tempDataDir("browser-viewer");
let served: Served;
let browser: Browser;

beforeAll(async () => {
  [served, browser] = await Promise.all([serve(["--dir", dir, "--allow-scripted"]), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  stopServed(served);
  await cleanup(dir);
});

/** Start a run of the demo agent through the JSON API, with the given scripted turns. */
const start = (runId: string, turns: unknown[], input?: string) => startRun(served, dir, runId, turns, input);

/** What the test keeps on a page: `loaded` stays true unless the page is reloaded; `streamed` is the longest streaming text shown. */
interface Marks {
  loaded?: boolean;
  streamed?: string;
}

/** Run in the page (its DOM, not this process's types): marks it loaded and records what the streaming block shows. */
const WATCH = `(() => {
  globalThis.loaded = true;
  globalThis.streamed = "";
  const text = document.querySelector('[data-testid="streaming-text"]');
  new MutationObserver(() => {
    const now = text.textContent || "";
    if (now.length > globalThis.streamed.length) globalThis.streamed = now;
  }).observe(text, { childList: true, characterData: true, subtree: true });
})()`;

/**
 * A run's page, opened once and marked, its streaming block watched. `noPush` makes the server's
 * push route answer 404, as a server that cannot push does, so the page must long-poll.
 */
async function open(runId: string, { noPush = false } = {}): Promise<Page> {
  const page = await browser.newPage();
  if (noPush) {
    await page.route(/\/live\?/, (route) =>
      route.fulfill({
        status: 404,
        contentType: "application/json",
        body: '{"error":{"code":"live_unavailable"}}',
      }),
    );
  }
  await page.goto(viewerUrl(served, `/runs/${runId}/view`));
  await page.evaluate(WATCH);
  return page;
}

const marks = (page: Page): Promise<Marks> =>
  page.evaluate("({ loaded: globalThis.loaded, streamed: globalThis.streamed })");
const stillLoaded = async (page: Page) => (await marks(page)).loaded;
const status = (page: Page) => page.getByTestId("run-status");
const events = (page: Page) => page.getByTestId("event");

describe("the run viewer in Chromium", () => {
  it("shows a run's events as they arrive, and its end, without a reload", async () => {
    await start("live", [
      { toolCalls: [{ name: "wait", arguments: { ms: 1_500 } }] },
      { text: "Your afternoon is planned: a walk, then tea by the river.", delayMs: 1_500 },
    ]);
    const page = await open("live");
    const first = await events(page).count();
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    // run_started, model_response, tool_started, tool_result, model_response at least, all added live.
    // The status can show before the last events (it is asked for apart from them): wait for those.
    await expect.poll(() => events(page).count()).toBeGreaterThan(first);
    await expect.poll(() => page.locator('[data-testid="event"][data-type="tool_result"]').count()).toBe(1);
    await expect.poll(() => page.getByTestId("output").textContent()).toContain("tea by the river");
    // Pushed by the server, the model's text shown as it streamed, before the stored response.
    expect(await page.getByTestId("live-status").textContent()).toContain("pushed by the server");
    expect((await marks(page)).streamed).toMatch(/^Your afternoon/);
    expect(await stillLoaded(page)).toBe(true);
    await page.close();
  });

  it("follows a run by long-polling where the server cannot push", async () => {
    await start("polled", [
      { toolCalls: [{ name: "wait", arguments: { ms: 1_500 } }] },
      { text: "Done, by asking.", delayMs: 500 },
    ]);
    const page = await open("polled", { noPush: true });
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    expect(await page.getByTestId("live-status").textContent()).toContain("asking the server");
    await expect.poll(() => page.locator('[data-testid="event"][data-type="tool_result"]').count()).toBe(1);
    expect(await stillLoaded(page)).toBe(true);
    await page.close();
  });

  it("approves a waiting call, and the run goes on to its answer", async () => {
    await start("approve", [
      { toolCalls: [{ name: "send_email", arguments: { to: "ana@example.com", subject: "Tea at 5" } }] },
      { text: "The invitation is sent." },
    ]);
    const page = await open("approve");
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("paused");
    const decide = page.getByTestId("decide-call_0_0");
    await decide.getByLabel("Reason (optional)").fill("Ana said yes");
    await decide.getByLabel("Your name (optional)").fill("maria");
    await decide.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    // The server's own user acted; the name typed in the form is kept beside it, never instead of it.
    await expect.poll(() => page.getByTestId("decided-by").first().textContent()).toMatch(/^local:/);
    expect(await page.getByTestId("on-behalf-of").first().textContent()).toBe("maria");
    expect(readFileSync(join(dir, "outbox.txt"), "utf8")).toContain("ana@example.com|Tea at 5");
    expect(await stillLoaded(page)).toBe(true);
    await page.close();
  });

  it("rejects a waiting call with a reason, and the model hears why", async () => {
    await start("reject", [
      { toolCalls: [{ name: "send_email", arguments: { to: "boss@example.com", subject: "I quit" } }] },
      { text: "I did not send it." },
    ]);
    const page = await open("reject");
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("paused");
    const decide = page.getByTestId("decide-call_0_0");
    await decide.getByLabel("Reason (optional)").fill("not today");
    await decide.getByRole("button", { name: "Reject" }).click();
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    const result = page.locator('[data-testid="event"][data-type="tool_result"]');
    await expect.poll(() => result.textContent()).toContain("not today");
    await page.close();
  });

  it("sends a message to a finished run, which answers it", async () => {
    await start("chat", [{ text: "Hello." }, { text: "Tomorrow looks sunny too." }], "Hi");
    const page = await open("chat");
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    const message = page.getByTestId("message");
    await message.getByLabel("Message", { exact: true }).fill("And tomorrow?");
    await message.getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.getByTestId("output").textContent(), { timeout: 30_000 })
      .toContain("Tomorrow looks sunny too.");
    await expect.poll(() => page.getByTestId("timeline").textContent()).toContain("And tomorrow?");
    expect(await stillLoaded(page)).toBe(true);
    await page.close();
  });

  it("keeps what was typed in a form when the run's status changes under it, and clears a form whose action succeeded", async () => {
    await start("typing", [
      { toolCalls: [{ name: "send_email", arguments: { to: "bo@example.com", subject: "Lunch" } }] },
      { text: "Sent." },
      { text: "Noted." },
    ]);
    const page = await open("typing");
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("paused");
    const forkInput = page.getByTestId("fork").getByLabel("New input (optional)");
    await forkInput.fill("half a thought");
    // Someone else approves (another tab, a backend): the page's state is replaced as it completes.
    await approveElsewhere(served, "typing", "call_0_0");
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    expect(await forkInput.inputValue()).toBe("half a thought");
    expect(await page.evaluate("document.activeElement.id")).toBe("fork-input");
    // A message that was sent is not put back by the refresh that follows it.
    const message = page.getByTestId("message").getByLabel("Message", { exact: true });
    await message.fill("Thanks");
    await page.getByTestId("message").getByRole("button", { name: "Send" }).click();
    await expect
      .poll(() => page.getByTestId("output").textContent(), { timeout: 30_000 })
      .toContain("Noted.");
    expect(await message.inputValue()).toBe("");
    expect(await forkInput.inputValue()).toBe("half a thought");
    await page.close();
  });

  it("clears a sent message, and keeps it from being sent twice, when a live refresh carried it into a new form while the send was awaited", async () => {
    await start("carried", [
      { toolCalls: [{ name: "send_email", arguments: { to: "bo@example.com", subject: "Dinner" } }] },
      { text: "Sent." },
      { text: "You are welcome." },
    ]);
    const page = await browser.newPage();
    // The page learns of new events only when the test lets it: no push, and a long-poll held.
    await page.route(/\/live\?/, (route) => route.fulfill({ status: 404, body: "{}" }));
    const polls: Route[] = [];
    await page.route(/\/events\?.*wait=/, (route) => void polls.push(route));
    const sends: Route[] = [];
    await page.route(/\/messages$/, (route) => void sends.push(route));
    await page.goto(viewerUrl(served, `/runs/carried/view`));
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("paused");
    const message = page.getByTestId("message").getByLabel("Message", { exact: true });
    await message.fill("Thanks");
    await page.getByTestId("message").getByRole("button", { name: "Send" }).click();
    await expect.poll(() => sends.length).toBe(1);
    // While the send is awaited, someone else approves and the run completes; then the page hears of it.
    await approveElsewhere(served, "carried", "call_0_0");
    await settled(served, "carried", "completed");
    await expect.poll(() => polls.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await polls.shift()!.continue();
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    // Not sent yet: what was typed is carried into the completed run's form, which cannot send it twice.
    expect(await message.inputValue()).toBe("Thanks");
    expect(await page.getByTestId("message").getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    // What the message field holds when the outcome is shown (the state is refreshed right after).
    await page.evaluate(`(() => {
      const shown = document.getElementById("action-message");
      new MutationObserver(() => {
        if (shown.getAttribute("data-outcome") === "ok") window.typedAtOutcome ??= document.getElementById("message-text").value;
      }).observe(shown, { attributes: true, childList: true });
    })()`);
    await sends.shift()!.continue();
    await expect.poll(() => page.getByTestId("action-message").textContent()).toContain("Message sent");
    expect(await page.evaluate("window.typedAtOutcome")).toBe("");
    await page.unrouteAll({ behavior: "ignoreErrors" });
    await page.close();
  });

  it("forks a run at an event with new input, lands on the fork, and finds it listed on the parent", async () => {
    await start("parent", [{ text: "Sunny all afternoon." }], "Will it rain?");
    const page = await open("parent");
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    const fork = page.getByTestId("fork");
    await fork.getByLabel("Fork at event #").fill("1");
    await fork.getByLabel("New input (optional)").fill("And tomorrow?");
    await fork.getByRole("button", { name: "Fork" }).click();
    await page.waitForURL((url) => /^\/runs\/(?!parent\/)[^/]+\/view$/.test(url.pathname), {
      timeout: 30_000,
    });
    const forkId = decodeURIComponent(new URL(page.url()).pathname.split("/")[2]!);
    expect(await page.getByTestId("parent-run").textContent()).toContain("parent");
    await expect.poll(() => page.getByTestId("timeline").textContent()).toContain("And tomorrow?");
    // The parent's page lists the fork, and its link leads back to it.
    await page.getByTestId("parent-run").click();
    await page.waitForURL((url) => url.pathname === "/runs/parent/view");
    const forks = page.getByTestId("forks");
    expect(await forks.textContent()).toContain(`${forkId} at event 1`);
    await forks.getByRole("link", { name: forkId }).click();
    await page.waitForURL((url) => url.pathname === `/runs/${encodeURIComponent(forkId)}/view`);
    await page.close();
  });

  it("shows the events an action wrote while a live load was refreshing the state, without another event to announce them", async () => {
    await start("joined", [
      { toolCalls: [{ name: "send_email", arguments: { to: "bo@example.com", subject: "Tea" } }] },
      { text: "Sent." },
      { text: "See you at five." },
    ]);
    const page = await browser.newPage();
    // The page learns of new events only when the test lets it: no push, and a long-poll held.
    await page.route(/\/live\?/, (route) => route.fulfill({ status: 404, body: "{}" }));
    const polls: Route[] = [];
    await page.route(/\/events\?.*wait=/, (route) => void polls.push(route));
    // The first state check after the events are loaded is held, so a load is under way when the action ends.
    const states: Route[] = [];
    let holdState = false;
    await page.route(
      (url) => url.pathname === "/runs/joined",
      (route) => {
        if (!holdState) return route.continue();
        holdState = false;
        states.push(route);
      },
    );
    await page.goto(viewerUrl(served, `/runs/joined/view`));
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("paused");
    await approveElsewhere(served, "joined", "call_0_0");
    await settled(served, "joined", "completed");
    holdState = true;
    await expect.poll(() => polls.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await polls.shift()!.continue();
    await expect.poll(() => states.length, { timeout: 30_000 }).toBe(1);
    // The load holds the events up to "Sent."; a message is sent and answered meanwhile.
    expect(await page.getByTestId("timeline").textContent()).toContain("Sent.");
    const message = page.getByTestId("message").getByLabel("Message", { exact: true });
    await message.fill("And then?");
    await page.getByTestId("message").getByRole("button", { name: "Send" }).click();
    await expect.poll(() => page.getByTestId("action-message").textContent()).toContain("Message sent");
    // The action asked for the new events while the load was under way; the load ends, and they are shown.
    await states.shift()!.continue();
    await expect
      .poll(() => page.getByTestId("timeline").textContent(), { timeout: 10_000 })
      .toContain("See you at five.");
    await page.unrouteAll({ behavior: "ignoreErrors" });
    await page.close();
  });

  it("cancels a running run", async () => {
    await start("cancelled", [
      { toolCalls: [{ name: "wait", arguments: { ms: 120_000 } }] },
      { text: "never" },
    ]);
    const page = await open("cancelled");
    await expect
      .poll(() => page.locator('[data-testid="event"][data-type="tool_started"]').count(), {
        timeout: 30_000,
      })
      .toBe(1);
    await page.getByTestId("cancel").getByRole("button", { name: "Cancel run" }).click();
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("cancelled");
    await expect.poll(() => page.locator('[data-testid="event"][data-type="cancelled"]').count()).toBe(1);
    await page.close();
  });

  it("says where a crashed run would resume, in words, and resumes it", async () => {
    await killedMidWait(dir, "crashed");
    const point = await runlog(dir, ["resume-point", "crashed"]);
    const page = await open("crashed");
    const shown = await page.getByTestId("resume-point").textContent();
    expect(shown).toContain("run again: call_0_0");
    // The same words `runlog resume-point` prints.
    for (const line of shown!.split("\n").filter((l) => l.trim() !== ""))
      expect(point.stdout).toContain(line.trim());
    // Resumed from the page, the cut-off call runs again and the run goes on to its answer.
    await page.getByTestId("resume").getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => status(page).getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    await expect.poll(() => page.getByTestId("rerun").count()).toBe(1);
    await page.close();
  });
});
