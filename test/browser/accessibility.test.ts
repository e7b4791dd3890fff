import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childLog, parentLog, recordedLog, replayLog } from "../http/viewerLogs.ts";
import { writeRuns } from "../http/viewerSupport.ts";
import { cleanup, killedMidWait, runlog, tempDataDir } from "../support/cli.ts";
import { type Served, serve, stopServed, viewerUrl } from "../support/serve.ts";
import { launchChromium } from "./support/chromium.ts";
import { settled as settledRun, startRun } from "./support/runs.ts";

/**
 * The run viewer audited in Chromium: axe-core's WCAG 2.1 A/AA and best-practice rules on every
 * kind of page (the runs list, a run waiting for approval, a completed run with folded payloads,
 * a crashed run, a page updated live, a run compared with its replay, a parent waiting on a child), at a desktop width and at 360 px; a waiting call approved
 * with the keyboard alone, the focus visibly marked at every step; no page scrolling sideways in
 * a narrow window, however long its ids and payloads.
 */
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];
const WIDTHS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "narrow", width: 360, height: 740 },
];

/** An id with no place to break a line: the page must wrap it, not scroll sideways. */
const LONG_ID = `a11y-long-${"x".repeat(110)}`;
/** Unbroken text: folded (over 2,000 characters) and shown whole (under). */
const FOLDED_CITY = "Llanfair".repeat(400);
const UNBROKEN = "W".repeat(1500);

const dir = tempDataDir("browser-a11y");
let served: Served;
let browser: Browser;

/** Start a run of the demo agent through the JSON API, with the given scripted turns. */
const start = (runId: string, turns: unknown[], input?: string) => startRun(served, dir, runId, turns, input);

/** Until the run has `status` (vi.waitFor: in beforeAll, where expect.poll is not allowed). */
const settled = (runId: string, status: string) => settledRun(served, runId, status);

const approval = (to: string) => [
  { toolCalls: [{ name: "send_email", arguments: { to, subject: "Tea at 5" } }] },
  { text: "The invitation is sent." },
];

beforeAll(async () => {
  // A recorded run and its replay (the compare page), and a parent waiting on its sub-agent's run.
  await writeRuns(
    dir,
    {
      "a11y-recorded": recordedLog("a11y-recorded"),
      "a11y-replay": replayLog("a11y-replay", "a11y-recorded"),
      "a11y-parent": parentLog("a11y-parent", "a11y-child"),
      "a11y-child": childLog("a11y-child", "a11y-parent"),
    },
    {
      "a11y-recorded": { status: "completed" },
      "a11y-replay": { status: "completed" },
      "a11y-parent": { status: "waiting" },
      "a11y-child": { status: "completed" },
    },
  );
  [served, browser] = await Promise.all([serve(["--dir", dir, "--allow-scripted"]), launchChromium()]);
  await start("a11y-waiting", approval("ana@example.com"));
  await start("a11y-keyboard", approval("bo@example.com"));
  await start(LONG_ID, [
    { toolCalls: [{ name: "get_weather", arguments: { city: FOLDED_CITY } }] },
    { toolCalls: [{ name: "write_note", arguments: { text: UNBROKEN.slice(0, 450) } }] },
    { text: `Here it is: ${UNBROKEN}` },
  ]);
  await killedMidWait(dir, "a11y-crashed");
  // A run whose cut-off call ran again on resume (its result is marked), and a fork of the long
  // run (listed on its page).
  await killedMidWait(dir, "a11y-rerun");
  expect((await runlog(dir, ["resume", "a11y-rerun"])).code).toBe(0);
  await settled(LONG_ID, "completed");
  const fork = await runlog(dir, ["fork", LONG_ID, "--id", "a11y-fork"]);
  expect(fork.code, fork.stderr).toBe(0);
  await Promise.all([settled("a11y-waiting", "paused"), settled("a11y-keyboard", "paused")]);
});
afterAll(async () => {
  await browser?.close();
  stopServed(served);
  await cleanup(dir);
});

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's violations on the page as it is now, each as its rule, impact and failing selectors. */
async function audit(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(AXE_TAGS)} } }).then((r) => r.violations)`,
  )) as Violation[];
  return violations.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((node) => JSON.stringify(node.target)).join(", ")}`,
  );
}

/**
 * How far the page scrolls sideways in CSS pixels (0 when it does not), and the elements that
 * reach past the window's right edge outside any box that scrolls, to name in a failure.
 */
const sideways = (page: Page): Promise<{ overflow: number; past: string[] }> =>
  page.evaluate(`(() => {
    const inScrollingBox = (el) => {
      for (let up = el.parentElement; up; up = up.parentElement)
        if (up !== document.body && /auto|scroll/.test(getComputedStyle(up).overflowX)) return true;
      return false;
    };
    const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className ? "." + String(el.className).trim().split(/\\s+/).join(".") : "");
    const past = [...document.body.querySelectorAll("*")]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5 && !inScrollingBox(el))
      .map(name);
    return { overflow: document.scrollingElement.scrollWidth - window.innerWidth, past: past.slice(-8) };
  })()`);

/** The pages audited, and what is done on each before (a `<details>` opened). */
const SCENES: { name: string; path: string; prepare?: (page: Page) => Promise<void> }[] = [
  { name: "the runs list, paged", path: "/?limit=2" },
  { name: "the runs list, filtered", path: "/?status=paused" },
  { name: "a run waiting for approval", path: "/runs/a11y-waiting/view" },
  {
    name: "a completed run with folded payloads, one opened",
    path: `/runs/${LONG_ID}/view`,
    prepare: (page) => page.locator('[data-testid="folded"] summary').first().click(),
  },
  { name: "a crashed run", path: "/runs/a11y-crashed/view" },
  { name: "a run whose tool call ran again", path: "/runs/a11y-rerun/view" },
  { name: "a run compared with its replay", path: "/runs/a11y-recorded/compare?with=a11y-replay" },
  { name: "a parent waiting on its sub-agent's run", path: "/runs/a11y-parent/view" },
];

/**
 * A page that axe can be injected into: the pages' Content-Security-Policy allows only the
 * server's own script, so the test's browser context ignores it (the page's own script still runs).
 */
const auditable = (viewport: (typeof WIDTHS)[number]) => browser.newPage({ viewport, bypassCSP: true });

async function openScene(scene: (typeof SCENES)[number], viewport: (typeof WIDTHS)[number]): Promise<Page> {
  const page = await auditable(viewport);
  await page.goto(viewerUrl(served, `${scene.path}`));
  await scene.prepare?.(page);
  return page;
}

describe("the run viewer's accessibility in Chromium", () => {
  const cases = SCENES.flatMap((scene) => WIDTHS.map((viewport) => ({ scene, viewport })));

  it.each(cases)("$scene.name at $viewport.name width breaks no axe rule", async ({ scene, viewport }) => {
    const page = await openScene(scene, viewport);
    if (scene.path === "/?limit=2") expect(await page.getByTestId("next-page").isVisible()).toBe(true);
    if (scene.prepare) expect(await page.locator("details[open]").count()).toBe(1);
    // What each page must show for the audit to cover it: the forks list, the re-run mark.
    if (scene.path.includes(LONG_ID)) expect(await page.getByTestId("fork-link").count()).toBe(1);
    if (scene.path.includes("a11y-rerun")) expect(await page.getByTestId("rerun").count()).toBe(1);
    expect(await audit(page)).toEqual([]);
    await page.close();
  });

  it("a page that received live events says the new status, and breaks no axe rule at either width", async () => {
    await start("a11y-live", [
      // Long enough for the page to open on a running run, and see it end live.
      { toolCalls: [{ name: "wait", arguments: { ms: 3_000 } }] },
      { text: "Your afternoon is planned.", delayMs: 500 },
    ]);
    const page = await auditable(WIDTHS[0]!);
    await page.goto(viewerUrl(served, `/runs/a11y-live/view`));
    const status = page.getByTestId("run-status");
    await expect.poll(() => status.getAttribute("data-status"), { timeout: 30_000 }).toBe("completed");
    await expect.poll(() => page.getByTestId("live-status").textContent()).toContain("pushed by the server");
    // The new status is said in a status region, which a screen reader reads when it changes.
    const announced = page.getByRole("status").filter({ hasText: "The run is now completed." });
    await expect.poll(() => announced.count()).toBe(1);
    for (const viewport of WIDTHS) {
      await page.setViewportSize(viewport);
      expect(await audit(page), viewport.name).toEqual([]);
    }
    await page.close();
  });

  it("at 360 px wide, no page scrolls sideways: long ids, payloads and code wrap or scroll in their box", async () => {
    for (const scene of SCENES) {
      const page = await openScene(scene, WIDTHS[1]!);
      const { overflow, past } = await sideways(page);
      expect(overflow, `${scene.name}: ${past.join(", ")}`).toBeLessThanOrEqual(0);
      await page.close();
    }
  });

  it("approves a waiting call with the keyboard alone, the focus visibly marked at every step", async () => {
    const page = await browser.newPage({ viewport: WIDTHS[0]! });
    await page.goto(viewerUrl(served, `/runs/a11y-keyboard/view`));
    const decide = page.getByTestId("decide-call_0_0");
    /** What has the focus now, and whether it is marked: an outline or a box-shadow under :focus-visible. */
    const focused = () =>
      page.evaluate(`(() => {
        const element = document.activeElement;
        const style = getComputedStyle(element);
        return {
          id: element.id,
          text: element.textContent.trim(),
          marked: element.matches(":focus-visible") && (style.outlineStyle !== "none" || style.boxShadow !== "none"),
        };
      })()`) as Promise<{ id: string; text: string; marked: boolean }>;
    const reasonId = await decide.getByLabel("Reason (optional)").getAttribute("id");
    /** Press `key` until `done` holds of the focused element, each focused element marked. */
    async function tabTo(key: string, done: (f: { id: string; text: string }) => boolean): Promise<void> {
      for (let presses = 0; presses < 60; presses++) {
        await page.keyboard.press(key);
        const now = await focused();
        expect(now.marked, `focus on #${now.id} "${now.text.slice(0, 40)}" is not marked`).toBe(true);
        if (done(now)) return;
      }
      throw new Error(`${key} never reached the element looked for`);
    }
    await tabTo("Tab", (f) => f.id === reasonId);
    await page.keyboard.type("Bo asked for it");
    await tabTo("Tab", (f) => f.text === "Reject");
    await tabTo("Shift+Tab", (f) => f.text === "Approve");
    // What had the focus when the outcome was shown: the state is refreshed after it, and a live
    // refresh may replace the form sooner, so the focus must move with the outcome, not after.
    await page.evaluate(`(() => {
      const message = document.getElementById("action-message");
      new MutationObserver(() => {
        if (message.getAttribute("data-outcome") === "ok") window.focusAtOutcome ??= document.activeElement.id;
      }).observe(message, { attributes: true, childList: true });
    })()`);
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.getByTestId("run-status").getAttribute("data-status"), { timeout: 30_000 })
      .toBe("completed");
    const decision = page.locator('[data-testid="event"][data-type="tool_decided"]');
    await expect.poll(() => decision.textContent()).toContain("Bo asked for it");
    expect(await decision.textContent()).toContain("Approved");
    // The approve form is gone with the wait: the focus is on the message that says what happened,
    // not lost. The run may end (live) before the answer to the POST is shown: wait for the focus.
    await expect
      .poll(() => page.evaluate("window.focusAtOutcome"), { timeout: 30_000 })
      .toBe("action-message");
    await expect.poll(async () => (await focused()).id).toBe("action-message");
    const after = await focused();
    expect(after.marked).toBe(true);
    expect(after.text).toContain("Decision recorded");
    await page.close();
  });
});
