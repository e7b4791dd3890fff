import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childLog, parentLog, transferredLog } from "./viewerLogs.ts";
import { openViewer } from "./viewerSupport.ts";

/** A run's page shows its sub-agent runs and its parent, and the agent now in charge of it. */
let t: Awaited<ReturnType<typeof openViewer>>;
beforeAll(async () => {
  t = await openViewer(
    "http-viewer-tree",
    {
      boss: parentLog("boss", "boss.researcher"),
      "boss.researcher": childLog("boss.researcher", "boss"),
      handed: transferredLog("handed"),
    },
    {
      "boss.researcher": { status: "completed" },
      handed: { status: "completed", agent: "billing" },
    },
  );
});
afterAll(() => t.close());

async function get(path: string) {
  const response = await t.app.request(path);
  return { status: response.status, text: await response.text() };
}

describe("the run tree", () => {
  it("lists a parent's sub-agent runs, linked with their status, and which one it waits for", async () => {
    const page = await get("/runs/boss/view");
    expect(page.status).toBe(200);
    const children = page.text.slice(page.text.indexOf('<dd data-testid="children">'));
    expect(children.slice(0, children.indexOf("</dd>"))).toMatch(
      /<a href="\/runs\/boss\.researcher\/view" data-testid="child-link">boss\.researcher<\/a> \(researcher\), <span class="status completed" data-testid="child-status">completed<\/span>/,
    );
    expect(page.text).toContain('data-testid="run-status" data-status="waiting">waiting<');
    expect(page.text).toMatch(
      /data-testid="waiting-for"><li>sub-agent run <a href="\/runs\/boss\.researcher\/view" data-testid="waiting-child">boss\.researcher<\/a> \(call ask_researcher, call_ask\)/,
    );
    // The waiting list is part of the state the page's script fetches again.
    expect((await get("/runs/boss/view/state")).text).toContain('data-testid="waiting-child"');
  });

  it("links a child to its parent and call, and lists no sub-agent runs for a run without any", async () => {
    const page = await get("/runs/boss.researcher/view");
    expect(page.text).toContain(
      '<dt>Sub-agent of</dt><dd><a href="/runs/boss/view" data-testid="parent-run">boss</a>, call call_ask</dd>',
    );
    expect(page.text).not.toContain('data-testid="children"');
    expect(page.text).not.toContain('data-testid="waiting-for"');
  });
});

describe("the agent in charge", () => {
  it("is shown on a transferred run's page, with the agent and model it started with", async () => {
    const page = await get("/runs/handed/view");
    expect(page.text).toContain(
      '<dt>Agent</dt><dd><span data-testid="agent">billing</span> <span data-testid="started-as">(started as triage)</span></dd>',
    );
    expect(page.text).toContain(
      '<dt>Model</dt><dd><span data-testid="model">scripted:billing</span> <span data-testid="started-with">(started with scripted:triage)</span></dd>',
    );
    const plain = await get("/runs/boss/view");
    expect(plain.text).toContain('<span data-testid="agent">demo</span></dd>');
    expect(plain.text).not.toContain('data-testid="started-as"');
  });

  it("names the agent and the model in charge in the runs list", async () => {
    const list = await get("/");
    const row = list.text.slice(list.text.indexOf('data-run-id="handed"'));
    expect(row.slice(0, row.indexOf("</tr>"))).toContain("<td>billing</td><td>scripted:billing</td>");
  });
});
