import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordedLog, replayLog } from "./viewerLogs.ts";
import { openViewer } from "./viewerSupport.ts";

/** The viewer's compare page: a recorded run and its replay side by side, over a real store. */
let t: Awaited<ReturnType<typeof openViewer>>;
beforeAll(async () => {
  t = await openViewer("http-viewer-compare", {
    weather: recordedLog("weather"),
    "weather.replay-1": replayLog("weather.replay-1", "weather"),
    again: recordedLog("again"),
    elsewhere: recordedLog("elsewhere", "Braga"),
  });
});
afterAll(() => t.close());

async function get(path: string) {
  const response = await t.app.request(path);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The table row of `row` (status, answer, calls, turns, tokens, cost). */
function row(text: string, name: string): string {
  const start = text.indexOf(`<tr data-row="${name}"`);
  expect(start, `row ${name}`).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf("</tr>", start));
}

describe("the compare page", () => {
  it("lists every difference in order, the first highlighted, and shows both sides", async () => {
    const page = await get("/runs/weather/compare?with=weather.replay-1");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const list = page.text.slice(page.text.indexOf('data-testid="differences"'));
    const kinds = [...list.slice(0, list.indexOf("</ol>")).matchAll(/data-what="([^"]+)"/g)].map((m) => m[1]);
    expect(kinds).toEqual(["answer", "tool_call_arguments", "tool_call_added"]);
    expect(page.text).toContain('<h2 id="differences-heading">3 differences</h2>');
    // The first difference (the answer) is the highlighted row; the calls row differs too.
    expect(row(page.text, "answer")).toContain(
      'class="first-difference changed" data-testid="first-difference-row"',
    );
    expect(row(page.text, "calls")).toContain('class="changed"');
    expect(row(page.text, "status")).not.toContain("changed");
    // Each side: status, answer, calls with their arguments, turns, tokens.
    expect(row(page.text, "status")).toMatch(
      /completed<\/span><\/td>\s*<td data-side="replayed"><span class="status completed">/,
    );
    expect(row(page.text, "answer")).toContain("Sunny in Faro.");
    const calls = row(page.text, "calls");
    expect(calls).toContain("{&quot;city&quot;:&quot;Faro&quot;}");
    expect(calls).toContain("{&quot;city&quot;:&quot;Lisbon&quot;}");
    expect(calls).toContain("{&quot;city&quot;:&quot;Porto&quot;}");
    expect(row(page.text, "turns")).toMatch(
      /<td data-side="recorded">2<\/td>\s*<td data-side="replayed">2<\/td>/,
    );
    expect(row(page.text, "tokens")).toMatch(
      /<td data-side="recorded">40<\/td>\s*<td data-side="replayed">90<\/td>/,
    );
    expect(row(page.text, "cost")).toContain("not priced");
    expect(page.text).toContain('href="/runs/weather/view" data-testid="recorded-run"');
    expect(page.text).toContain('href="/runs/weather.replay-1/view" data-testid="replay-run"');
  });

  it("escapes the model's text", async () => {
    const page = await get("/runs/weather/compare?with=weather.replay-1");
    expect(page.text).not.toContain("<script>alert");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain(
      "Rain &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;",
    );
  });

  it("says when nothing differs, and highlights the first differing call when calls differ first", async () => {
    const same = await get("/runs/weather/compare?with=again");
    expect(same.text).toContain('data-testid="no-differences"');
    expect(same.text).not.toContain("first-difference");
    const page = await get("/runs/weather/compare?with=elsewhere");
    expect(page.text).toContain(
      "tool call arguments changed: get_weather({&quot;city&quot;:&quot;Faro&quot;}) -&gt; get_weather({&quot;city&quot;:&quot;Braga&quot;})",
    );
    expect(row(page.text, "calls")).toContain('data-testid="first-difference-row"');
    const marked = [
      ...row(page.text, "calls").matchAll(
        /data-testid="first-difference-call"><code>get_weather<\/code> <code class="arguments">([^<]*)</g,
      ),
    ];
    expect(marked.map((m) => m[1])).toEqual([
      "{&quot;city&quot;:&quot;Faro&quot;}",
      "{&quot;city&quot;:&quot;Braga&quot;}",
    ]);
  });

  it("is linked from the replay's page, which names its original", async () => {
    const page = await get("/runs/weather.replay-1/view");
    expect(page.text).toContain('<a href="/runs/weather/view" data-testid="replay-of">weather</a>');
    expect(page.text).toContain(
      'href="/runs/weather/compare?with=weather.replay-1" data-testid="compare-link"',
    );
    expect((await get("/runs/weather/view")).text).not.toContain('data-testid="replay-of"');
  });

  it("answers a missing or bad `with`, and an unknown recorded run, with an error page", async () => {
    const missing = await get("/runs/weather/compare");
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("with is required: the run to compare weather with");
    expect((await get("/runs/weather/compare?with=a%2Fb")).status).toBe(400);
    expect((await get("/runs/nobody/compare?with=weather")).status).toBe(404);
  });

  it("answers 404 naming the run compared with when it does not exist, not an empty run", async () => {
    const page = await get("/runs/weather/compare?with=no-such-run");
    expect(page.status).toBe(404);
    expect(page.text).toContain('data-testid="error-message">run no-such-run not found</p>');
    expect(page.text).not.toContain("not_started");
  });
});
