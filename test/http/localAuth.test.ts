import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../lib/http/app.ts";
import { call, openApp } from "./support.ts";

/** The local server's lock, tried as another local user or a web page's script would (issue 24). */
const TOKEN = "t".repeat(43);
const ORIGIN = "http://127.0.0.1:8787";
let t: Awaited<ReturnType<typeof openApp>>;
let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  t = await openApp("http-local-auth");
  app = createApp(t.local.runlog, { localToken: TOKEN, viewer: true });
});
afterAll(() => t.close());

const bearer = (token = TOKEN) => ({ authorization: `Bearer ${token}` });
const start = { agent: "demo", input: "hi" };

describe("a server with a local token", () => {
  it("answers 401 to a request without the token, on API and viewer routes alike", async () => {
    for (const path of ["/runs", "/", "/_viewer/viewer.js", "/runs/x/view", "/nowhere"]) {
      const answer = await app.request(`${ORIGIN}${path}`);
      expect([path, answer.status]).toEqual([path, 401]);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    expect((await call(app, "POST", "/runs", start)).status).toBe(401);
  });

  it("answers 401 to a wrong token, in the header, the cookie or the URL", async () => {
    expect((await call(app, "GET", "/runs", undefined, bearer("x".repeat(43)))).status).toBe(401);
    expect((await call(app, "GET", "/runs", undefined, bearer(`${TOKEN}x`))).status).toBe(401);
    expect((await call(app, "GET", "/runs", undefined, { cookie: "runlog_token=nope" })).status).toBe(401);
    const guessed = await app.request(`${ORIGIN}/?token=${"y".repeat(43)}`);
    expect(guessed.status).toBe(401);
    expect(guessed.headers.get("set-cookie")).toBeNull();
  });

  it("serves a request with the bearer token or the cookie", async () => {
    expect((await call(app, "GET", "/runs", undefined, bearer())).status).toBe(200);
    expect((await call(app, "GET", "/runs", undefined, { cookie: `runlog_token=${TOKEN}` })).status).toBe(
      200,
    );
  });

  it("sets the cookie from ?token= and sends the page to the same URL without it", async () => {
    const answer = await app.request(`${ORIGIN}/runs/r-1/view?x=1&token=${TOKEN}`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/runs/r-1/view?x=1");
    const cookie = (answer.headers.get("set-cookie") ?? "").split(";").map((part) => part.trim());
    expect(cookie).toEqual(
      expect.arrayContaining([`runlog_token=${TOKEN}`, "HttpOnly", "SameSite=Strict", "Path=/"]),
    );
  });

  it("refuses a POST from a foreign Origin with 403, even with the token", async () => {
    for (const origin of [
      "https://attacker.example",
      "null",
      "http://127.0.0.1:9999",
      "http://localhost:8787",
    ]) {
      const answer = await call(app, "POST", "/runs", start, { ...bearer(), origin });
      expect([origin, answer.status, answer.body.error]).toEqual([
        origin,
        403,
        expect.objectContaining({ code: "forbidden_origin" }),
      ]);
    }
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const answer = await app.request(`${ORIGIN}/runs/x`, {
        method,
        headers: { ...bearer(), origin: "https://attacker.example" },
      });
      expect([method, answer.status]).toEqual([method, 403]);
    }
  });

  it("refuses Sec-Fetch-Site: cross-site with 403, and lets the server's own pages write", async () => {
    const cross = await call(app, "POST", "/runs", start, { ...bearer(), "sec-fetch-site": "cross-site" });
    expect(cross.status).toBe(403);
    expect(cross.body.error).toMatchObject({ code: "forbidden_origin" });
    const own = await app.request(`${ORIGIN}/runs`, {
      method: "POST",
      headers: {
        cookie: `runlog_token=${TOKEN}`,
        origin: ORIGIN,
        "sec-fetch-site": "same-origin",
        "content-type": "application/json",
      },
      body: JSON.stringify({ ...start, runId: "own-page" }),
    });
    expect(own.status).toBe(202);
  });

  it("lets the server's own pages write under every loopback name the Host check accepts, same scheme and port", async () => {
    const post = (url: string, origin: string, runId: string) =>
      app.request(url, {
        method: "POST",
        headers: { ...bearer(), origin, "content-type": "application/json" },
        body: JSON.stringify({ ...start, runId }),
      });
    const served = ["http://127.0.0.1:8787", "http://localhost:8787", "http://[::1]:8787"];
    for (const [i, at] of served.entries()) {
      for (const [j, origin] of served.entries()) {
        const answer = await post(`${at}/runs`, origin, `loopback-${i}-${j}`);
        expect([at, origin, answer.status]).toEqual([at, origin, 202]);
      }
      // Another port or scheme is another origin, loopback or not.
      for (const origin of ["http://localhost:9999", "https://localhost:8787", "http://127.0.0.2:8787"]) {
        const answer = await post(`${at}/runs`, origin, "never");
        expect([at, origin, answer.status]).toEqual([at, origin, 403]);
      }
    }
    // A server reached by another name keeps its one origin.
    expect((await post("http://runlog.example:8787/runs", "http://localhost:8787", "never")).status).toBe(
      403,
    );
  });

  it("says a right ?token= on a POST is taken only on GET, and what to send instead", async () => {
    const answer = await app.request(`${ORIGIN}/runs?token=${TOKEN}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(start),
    });
    expect(answer.status).toBe(401);
    const { error } = (await answer.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("unauthorized");
    expect(error.message).toMatch(/only on GET/);
    expect(error.message).toMatch(/Authorization: Bearer/);
    expect(error.message).not.toMatch(/does not match/);
  });

  it("refuses scripted:/etc/passwd when script files are not allowed, quoting nothing of it", async () => {
    const answer = await call(app, "POST", "/runs", { ...start, model: "scripted:/etc/passwd" }, bearer());
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "invalid_input", field: "model" });
    expect(JSON.stringify(answer.body)).not.toContain("root:");
  });
});
