import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { script } from "../support/cli.ts";
import { call, openApp, settled } from "./support.ts";

/** What the API and the viewer answer carries no sniffable type, and hostile text shows as what it is. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("hostile-text", { allowScriptFiles: true, viewer: true });
  const model = script(t.dir, "bidi", [{ text: "Saved as invoice\u202Etxt.exe\u200B", stop: "stop" }]);
  await call(t.app, "POST", "/runs", { agent: "demo", input: "save it", runId: "bidi", model });
  await settled(t.app, "bidi");
});
afterAll(() => t.close());

describe("every answer", () => {
  it.each([
    ["a JSON answer", "/runs/bidi"],
    ["an error", "/runs/no-such-run"],
    ["an unknown route", "/no/such/route"],
    ["a viewer page", "/runs/bidi/view"],
    ["the runs page", "/"],
  ])("%s says nosniff and no-referrer", async (_name, path) => {
    const response = await t.app.request(path);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  });
});

describe("a bidi override in a run's text", () => {
  it("is shown as an escape on the viewer's page, never as the character", async () => {
    const page = await (await t.app.request("/runs/bidi/view")).text();
    expect(page).toContain("invoice\\u{202e}txt.exe\\u{200b}");
    expect(page).not.toContain("\u202E");
    expect(page).not.toContain("\u200B");
  });

  it("is kept as it is in the log and the JSON API: the data is not changed, only how it is shown", async () => {
    expect((await call(t.app, "GET", "/runs/bidi")).body.output).toBe("Saved as invoice\u202Etxt.exe\u200B");
  });
});
