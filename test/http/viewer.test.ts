import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewEvent } from "../../lib/core/events.ts";
import { RESPONSE_MAX_BYTES } from "../../lib/http/limits.ts";
import { FOLD_CHARS } from "../../lib/http/viewer/fold.ts";
import { FORKS_SHOWN } from "../../lib/http/viewer/runAbout.ts";
import { script } from "../support/cli.ts";
import { call, DONE, EMAIL, settled } from "./support.ts";
import {
  BIG,
  crashedLog,
  edgeLog,
  HOSTILE,
  LONG_ARGUMENTS,
  longApprovalLog,
  openViewer,
  wordyLog,
} from "./viewerSupport.ts";

/** The run viewer's pages (AppOptions.viewer), in process, over a real store in background mode. */
let t: Awaited<ReturnType<typeof openViewer>>;
beforeAll(async () => {
  t = await openViewer("http-viewer", {
    crashed: crashedLog("crashed"),
    wordy: wordyLog("wordy"),
    rerun: rerunLog("rerun"),
    edge: edgeLog("edge"),
    "long-args": longApprovalLog("long-args"),
  });
  await start("demo-run", { model: "scripted:demo" });
  await start("paused-run", { model: script(t.dir, "paused", [{ toolCalls: [EMAIL] }, DONE]) });
});
afterAll(() => t.close());

async function start(runId: string, body: Record<string, unknown>) {
  const answer = await call(t.app, "POST", "/runs", {
    agent: "demo",
    input: "Plan my afternoon",
    runId,
    ...body,
  });
  expect(answer.status).toBe(202);
  return settled(t.app, runId);
}

async function get(path: string) {
  const response = await t.app.request(path);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** A run whose `wait` call was cut off by a crash and run again on resume (the tool is idempotent). */
function rerunLog(runId: string): NewEvent[] {
  const call = { id: "call_w", name: "wait", arguments: '{"ms":1}' };
  return [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "wait" },
    { type: "model_response", text: "", toolCalls: [call], stop: "tool_calls" },
    { type: "tool_started", callId: "call_w", name: "wait" },
    { type: "resumed", generation: 2, kind: "recover_tools", description: "run wait again", by: "sweeper" },
    {
      type: "tool_result",
      callId: "call_w",
      name: "wait",
      content: "waited 1 ms",
      isError: false,
      rerun: true,
    },
    { type: "model_response", text: "ok", toolCalls: [], stop: "stop" },
  ];
}

/** The timeline entry of event `seq`, from its `<li>` to the next entry's. */
function entry(text: string, seq: number): string {
  const start = text.lastIndexOf(`<li class="event`, text.indexOf(`id="e${seq}"`));
  expect(start, `event ${seq} is listed`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf(`<li class="event`, start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

const testIds = (text: string) => [...text.matchAll(/data-testid="([^"]+)"/g)].map((match) => match[1]);

describe("the runs list at /", () => {
  it("lists each run with status, agent, model, events and last activity, linking to its timeline", async () => {
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    for (const runId of ["crashed", "demo-run", "paused-run"]) {
      expect(page.text).toContain(`href="/runs/${runId}/view"`);
    }
    const paused = page.text.slice(page.text.indexOf('data-run-id="paused-run"'));
    expect(paused.slice(0, paused.indexOf("</tr>"))).toMatch(
      /paused<\/span><\/td>\s*<td>demo<\/td><td>scripted:[^<]*paused\.json<\/td><td class="number">3<\/td>/,
    );
    // The crashed run's head still says running; the list shows the status its log rests in.
    expect(page.text).toMatch(/data-run-id="crashed"[\s\S]*?data-testid="run-status">interrupted</);
    // Newest first: the paused run was started last.
    expect(page.text.indexOf('data-run-id="paused-run"')).toBeLessThan(
      page.text.indexOf('data-run-id="demo-run"'),
    );
    expect(page.text).toContain('<script src="/_viewer/viewer.js" defer></script>');
  });

  it("pages with the list's cursor: every run once over the pages", async () => {
    const seen: string[] = [];
    let path = "/?limit=2";
    for (let pages = 0; pages < 5; pages++) {
      const page = await get(path);
      expect(page.status).toBe(200);
      seen.push(...[...page.text.matchAll(/data-testid="run-row" data-run-id="([^"]+)"/g)].map((m) => m[1]!));
      const next = /href="([^"]+)" rel="next" data-testid="next-page"/.exec(page.text);
      if (!next) break;
      path = next[1]!.replaceAll("&amp;", "&");
      expect(path).toMatch(/^\/\?limit=2&cursor=/);
    }
    expect(seen.sort()).toEqual(["crashed", "demo-run", "edge", "long-args", "paused-run", "rerun", "wordy"]);
  });

  it("filters by status, and says so when no run has it", async () => {
    const paused = await get("/?status=paused");
    expect(paused.text).toContain('data-run-id="paused-run"');
    expect(paused.text).not.toContain('data-run-id="demo-run"');
    expect(paused.text).toContain('<option value="paused" selected>');
    const refused = await get("/?status=refused");
    expect(refused.text).toContain("No runs with status refused");
    const bogus = await get("/?status=sleeping");
    expect(bogus.status).toBe(400);
    expect(bogus.text).toContain("status: expected one of running, paused, waiting, cancelled, completed");
    expect(bogus.text).toContain("got &quot;sleeping&quot;");
  });
});

describe("a run's forks", () => {
  it("are listed on its page, linked, with where each was forked; more than the page holds link to all", async () => {
    expect((await get("/runs/demo-run/view")).text).toContain('<dd data-testid="forks">none</dd>');
    const forkIds = Array.from({ length: FORKS_SHOWN + 1 }, (_, i) => `demo-fork-${i}`);
    for (const forkId of forkIds) {
      const fork = await call(t.app, "POST", "/runs/demo-run/fork", { atSeq: 2, forkId });
      expect(fork.status).toBe(202);
      await settled(t.app, forkId);
    }
    const page = await get("/runs/demo-run/view");
    const links = [...page.text.matchAll(/href="\/runs\/([^/"]+)\/view" data-testid="fork-link"/g)];
    expect(links).toHaveLength(FORKS_SHOWN);
    expect(page.text).toContain(">demo-fork-10</a> at event 2, completed</li>");
    expect(page.text).toContain('<a href="/?parent=demo-run" data-testid="all-forks">all forks</a>');

    const all = await get("/?parent=demo-run");
    expect(all.text).toContain('Forks of run <a href="/runs/demo-run/view"><code>demo-run</code></a>');
    expect(all.text.match(/data-testid="run-row"/g)).toHaveLength(forkIds.length);
    expect(all.text).toContain('<input type="hidden" name="parent" value="demo-run">');
    expect((await get("/?parent=demo-fork-0")).text).toContain("No forks.");
    expect((await get("/?parent=a%2Fb")).status).toBe(400);
  });
});

describe("a run's timeline at /runs/{id}/view", () => {
  it("shows a demo run's turns, tool calls and results, its output, and no resume for a completed run", async () => {
    const page = await get("/runs/demo-run/view");
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-testid="run-status" data-status="completed"');
    expect(page.text).toContain("not resumable: completed\nthe run ended with a final answer");
    const ids = testIds(page.text);
    expect(ids).toEqual(
      expect.arrayContaining(["timeline", "event", "tool-call", "tool-outcome", "output", "fork", "message"]),
    );
    expect(ids).not.toContain("resume");
    expect(ids).not.toContain("cancel");
    const events = (await call(t.app, "GET", "/runs/demo-run/events")).body.events as { seq: number }[];
    expect(page.text).toContain(`data-last-seq="${events.at(-1)!.seq}" data-live="true"`);
    expect(page.text.match(/data-testid="event"/g)).toHaveLength(events.length);
  });

  it("a paused run shows its waiting call with approve and reject, a reason field, and cancel", async () => {
    const page = await get("/runs/paused-run/view");
    expect(page.text).toContain('data-status="paused"');
    expect(page.text).toContain("not resumable: awaiting_approval");
    expect(page.text).toContain("  waiting: call_0_0  send_email(");
    const form = page.text.slice(page.text.indexOf('data-testid="decide-call_0_0"'));
    expect(form).toMatch(/^data-testid="decide-call_0_0">/);
    expect(form.slice(0, form.indexOf("</form>"))).toMatch(
      /<label for="decide-call_0_0-reason">Reason \(optional\)<\/label>[\s\S]*value="true">Approve<\/button><button type="submit" name="approved" value="false">Reject/,
    );
    expect(page.text).toContain('data-path="/runs/paused-run/approvals/call_0_0"');
    expect(testIds(page.text)).toEqual(expect.arrayContaining(["cancel", "fork", "message"]));
    expect(testIds(page.text)).not.toContain("resume");
    expect(page.text).toContain('<span class="badge">needs approval</span>');
  });

  it("a crashed run shows its resume point in words, as runlog resume-point prints it, and offers resume", async () => {
    const page = await get("/runs/crashed/view");
    expect(page.text).toContain('data-status="interrupted"');
    expect(page.text).toContain(
      "resumable: recover_tools\ntool calls started and have no result: run get_weather (call_cut) again (the tool is idempotent), then continue\n  run again: call_cut  get_weather(",
    );
    expect(testIds(page.text)).toEqual(expect.arrayContaining(["resume", "cancel", "fork"]));
    expect(entry(page.text, 2)).toMatch(
      /stop: <strong data-testid="stop">tool_calls<\/strong><\/span><span>12 → 34 tokens<\/span><span>56 ms<\/span>/,
    );
  });

  it("escapes model text and tool arguments: no markup of theirs reaches the page", async () => {
    const page = await get("/runs/crashed/view");
    expect(page.text).not.toContain("<script>alert");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain(
      "thinking &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;",
    );
    expect(entry(page.text, 5)).toContain("&lt;script&gt;alert(\\&quot;x\\&quot;)&lt;/script&gt;");
    expect(HOSTILE).toContain("<script>");
  });

  it("folds a 1 MB tool result: the start of the event and a link to it whole (in parts), not the result", async () => {
    const page = await get("/runs/crashed/view");
    const result = entry(page.text, 4);
    expect(result).toContain("tool_result (too big to show here)");
    expect(result).toMatch(/<details class="folded" data-testid="folded">\s*<summary>/);
    expect(result).toContain("xxxxxxxxxx…</pre>");
    expect(result).not.toContain("x".repeat(501));
    // The event's JSON is over one answer: the link reads it in parts.
    expect(result).toContain('href="/runs/crashed/events/4?part=0"');
    expect(page.text.length).toBeLessThan(BIG.length / 20);
    expect((await call(t.app, "GET", "/runs/crashed/events/4?part=0")).status).toBe(200);
  });

  it("folds a long text that fits a page: a preview of it, its size, and a link to the whole event", async () => {
    const page = await get("/runs/wordy/view");
    const answer = entry(page.text, 2);
    expect(answer).toContain("<summary>model text: 98 KB, folded (the first 500 characters)</summary>");
    expect(answer).toContain(`${"word ".repeat(100)}…</pre>`);
    expect(answer).not.toContain("word ".repeat(101));
    expect(answer).toContain('href="/runs/wordy/events/2"');
    // The output too is shown in part.
    expect(page.text).not.toContain("word ".repeat(401));
  });

  it("links an event that only just fits one answer as GET /runs/{id}/events does: to its parts, a link that answers", async () => {
    // Under RESPONSE_MAX_BYTES alone, over it as {runId, event}: the events page lists it truncated.
    const bytes = Buffer.byteLength(JSON.stringify(await t.local.runlog.event("edge", 2)), "utf8");
    expect(bytes).toBeLessThanOrEqual(RESPONSE_MAX_BYTES);
    const listed = (await call(t.app, "GET", "/runs/edge/events")).body.events as Record<string, unknown>[];
    expect(listed[1]).toMatchObject({ seq: 2, truncated: { href: "/runs/edge/events/2?part=0" } });
    expect((await call(t.app, "GET", "/runs/edge/events/2")).status).toBe(400);

    const answer = entry((await get("/runs/edge/view?after=1")).text, 2);
    const links = [...answer.matchAll(/<a href="([^"]+)">The whole event as JSON<\/a>/g)].map((m) => m[1]);
    expect(links).toEqual(["/runs/edge/events/2?part=0"]);
    expect((await call(t.app, "GET", links[0]!)).status).toBe(200);
  });

  it("shows clipped arguments in the decide form with an ellipsis and a link to the call in the timeline", async () => {
    const page = (await get("/runs/long-args/view")).text;
    const form = page.slice(page.indexOf('data-testid="decide-call_long"'));
    const decide = form.slice(0, form.indexOf("</form>"));
    const shown = /<pre class="payload" aria-label="arguments">([^<]*)<\/pre>/.exec(decide)?.[1];
    expect(LONG_ARGUMENTS.length).toBeGreaterThan(FOLD_CHARS);
    expect(shown).toBe(`${LONG_ARGUMENTS.slice(0, FOLD_CHARS).replaceAll('"', "&quot;")}…`);
    expect(decide).toContain('<a href="#call-call_long"><code>call_long</code></a>');
    expect(page).toContain('<li id="call-call_long" data-testid="tool-call"');
    // Arguments that fit are shown whole, with no link.
    const short = (await get("/runs/paused-run/view")).text;
    expect(short).not.toContain("arguments-clipped");
  });

  it("marks a tool call that was run again after an interruption, on its result", async () => {
    const page = await get("/runs/rerun/view");
    const result = entry(page.text, 5);
    expect(result).toContain("Tool wait finished (re-run)");
    expect(result).toContain('data-testid="rerun"');
    expect(entry(page.text, 3)).not.toContain('data-testid="rerun"');
    expect(testIds(page.text).filter((id) => id === "rerun")).toHaveLength(1);
  });

  it("answers 404 for an unknown run, as a page saying so", async () => {
    const page = await get("/runs/no-such-run/view");
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain('<p role="alert" data-testid="error-message">run no-such-run not found</p>');
    expect((await get("/runs/no-such-run/view/events?after=0")).status).toBe(404);
  });

  it("lists events after a seq as timeline entries (what the page's script appends live)", async () => {
    const fragment = await get("/runs/crashed/view/events?after=4");
    expect(fragment.status).toBe(200);
    expect(
      [...fragment.text.matchAll(/<li class="event [a-z_]+" id="e(\d+)"/g)].map((m) => Number(m[1])),
    ).toEqual([5, 6]);
    expect(fragment.text).not.toContain("<html");
    expect((await get("/runs/crashed/view/events?after=6")).text.trim()).toBe("");
    const state = await get("/runs/crashed/view/state?last=6");
    expect(state.text).toContain('data-testid="run-status" data-status="interrupted"');
  });

  it("serves its script and styles from /_viewer/", async () => {
    const script = await get("/_viewer/viewer.js");
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(script.text).toContain('"/live?after="');
    expect(script.text).toContain('"/events?limit=1&after="');
    const style = await get("/_viewer/viewer.css");
    expect(style.headers.get("content-type")).toMatch(/^text\/css/);
    expect(style.text).toContain(":focus-visible");
    // docs/guides/run-viewer.md's "about 11 KB and 4 KB": nothing else the page loads.
    expect(Buffer.byteLength(script.text)).toBeLessThan(12 * 1024);
    expect(Buffer.byteLength(style.text)).toBeLessThan(5 * 1024);
  });
});

describe("the JSON routes with the viewer on", () => {
  it.each(["/runs", "/runs/demo-run", "/runs/demo-run/events", "/runs/crashed/resume-point", "/nowhere"])(
    "GET %s answers as without the viewer",
    async (path) => {
      const viewer = await call(t.app, "GET", path);
      const plain = await call(t.plain, "GET", path);
      expect(viewer).toEqual(plain);
    },
  );

  it("without the option there are no pages: / is a JSON 404", async () => {
    const response = await t.plain.request("/runs/demo-run/view");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: "not_found" } });
  });
});
