import { randomBytes } from "node:crypto";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { defineTool } from "../../lib/agents/defineTool.ts";
import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { createApp } from "../../lib/http/app.ts";
import { RESPONSE_MAX_BYTES } from "../../lib/http/limits.ts";
import { cleanup, script, tempDataDir, testEnv } from "../support/cli.ts";
import { type Answer, call, expectError } from "./support.ts";

/**
 * GET /runs/{id}/events pages and GET /runs/{id}/events/{seq}, on a run whose tool returned 7 MB:
 * every answer within RESPONSE_MAX_BYTES, the pages listing every event once, the big one whole in parts.
 */
const BIG = 7 * 1024 * 1024;
// Text that does not compress, with characters JSON escapes and some beyond ASCII, so sizes are not guessable.
const big = `${randomBytes((BIG * 3) / 4).toString("base64")}"\\\n é ✓`;
const fetchReport = defineTool({
  name: "fetch_report",
  description: "Fetch the whole report.",
  parameters: z.object({}),
  run: () => big,
});

const fetchSection = defineTool({
  name: "fetch_section",
  description: "Fetch one section of the report.",
  parameters: z.object({ n: z.number().int() }),
  run: () => randomBytes(300 * 1024).toString("base64"),
});

const isBig = (event: RunEvent) => event.type === "tool_result" && event.content === big;

let dir: string;
let local: LocalRunlog;
let app: Hono;
beforeAll(async () => {
  dir = tempDataDir("http-events");
  const agents = {
    reporter: () => ({
      name: "reporter",
      instructions: "Report.",
      tools: [fetchReport as never, fetchSection as never],
      defaultModel: "scripted:demo",
    }),
  };
  local = await openLocal({ dataDir: dir, env: testEnv(), agents });
  app = createApp(local.runlog, { allowScriptFiles: true });
  // Three results of 400 KB (two fill a page), then the 7 MB one.
  const turns = [
    { toolCalls: [0, 1, 2].map((n) => ({ name: "fetch_section", arguments: { n } })) },
    { toolCalls: [{ name: "fetch_report", arguments: {} }] },
    { text: "Read it", stop: "stop" },
  ];
  const model = script(dir, "big", turns);
  const outcome = await local.runlog.start({ agent: "reporter", input: "Get it", runId: "big", model });
  expect(outcome.status).toBe("completed");
});
afterAll(async () => {
  await local.close();
  await cleanup(dir);
});

/** GET, with the answer's size as sent. */
async function get(path: string): Promise<Answer & { bytes: number }> {
  const response = await app.request(path);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: JSON.parse(text) as Record<string, unknown>,
    bytes: Buffer.byteLength(text),
  };
}

type Listed =
  | RunEvent
  | { seq: number; type: string; at: string; truncated: { preview: string; href: string } };

/** Every page from `after`, following `next`. */
async function allPages(query = "") {
  const pages: { events: Listed[]; bytes: number; next?: number }[] = [];
  let next: number | undefined;
  do {
    const after = next === undefined ? "" : `after=${next}&`;
    const answer = await get(`/runs/big/events?${after}${query}`);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    const page = answer.body as { events: Listed[]; next?: number };
    pages.push({ ...page, bytes: answer.bytes });
    next = page.next;
  } while (next !== undefined);
  return pages;
}

/** The whole event at an href of parts, rebuilt from them. */
async function fromParts(href: string): Promise<{ event: unknown; parts: number; bytes: number[] }> {
  const chunks: Buffer[] = [];
  const sizes: number[] = [];
  let at: string | undefined = href;
  let parts = 0;
  while (at !== undefined) {
    const answer = await get(at);
    expect(answer.status).toBe(200);
    const part = answer.body as { part: number; parts: number; data: string; next?: string; bytes: number };
    expect(part.part).toBe(chunks.length);
    chunks.push(Buffer.from(part.data, "base64"));
    sizes.push(answer.bytes);
    parts = part.parts;
    at = part.next;
  }
  expect(chunks).toHaveLength(parts);
  return { event: JSON.parse(Buffer.concat(chunks).toString("utf8")), parts, bytes: sizes };
}

describe("GET /runs/{id}/events on a run with a 7 MB tool result", () => {
  it("pages within 1 MB, listing every event once in order, the big one truncated with its href", async () => {
    const log = await local.runlog.events("big");
    const pages = await allPages();
    // The 400 KB results do not all fit in one page.
    expect(pages.length).toBeGreaterThanOrEqual(2);
    for (const page of pages) expect(page.bytes).toBeLessThanOrEqual(RESPONSE_MAX_BYTES);
    const listed = pages.flatMap((page) => page.events);
    expect(listed.map((event) => event.seq)).toEqual(log.map((event) => event.seq));
    const result = log.find(isBig)!;
    for (const event of listed) {
      if (event.seq !== result.seq) expect(event).toEqual(log[event.seq - 1]);
    }
    const truncated = listed[result.seq - 1] as Extract<Listed, { truncated: unknown }>;
    expect(truncated).toEqual({
      seq: result.seq,
      type: "tool_result",
      at: result.at,
      truncated: { preview: expect.any(String), href: `/runs/big/events/${result.seq}?part=0` },
    });
    expect(truncated.truncated.preview.length).toBeGreaterThan(1000);
    expect(truncated.truncated.preview).toMatch(/^\{"at":/);
  });

  it("serves the big event exactly, in parts of at most 1 MB each", async () => {
    const result = (await local.runlog.events("big")).find(isBig)!;
    const rebuilt = await fromParts(`/runs/big/events/${result.seq}?part=0`);
    expect(rebuilt.event).toEqual(result);
    expect((rebuilt.event as { content: string }).content).toBe(big);
    expect(rebuilt.parts).toBeGreaterThanOrEqual(10);
    for (const bytes of rebuilt.bytes) expect(bytes).toBeLessThanOrEqual(RESPONSE_MAX_BYTES);
  });

  it("without ?part, answers a small event whole and refuses the big one, saying how many parts to read", async () => {
    const log = await local.runlog.events("big");
    expect((await get("/runs/big/events/1")).body).toEqual({ runId: "big", event: log[0] });
    const result = log.find(isBig)!;
    const refused = await get(`/runs/big/events/${result.seq}`);
    const error = expectError(refused, 400, "invalid_input");
    expect(error.field).toBe("part");
    expect(error.message).toMatch(/read it in \d+ parts/);
    // A small event is one part.
    const one = (await get("/runs/big/events/1?part=0")).body;
    expect(one).toMatchObject({ runId: "big", seq: 1, part: 0, parts: 1 });
    expect(JSON.parse(Buffer.from(one.data as string, "base64").toString("utf8"))).toEqual(log[0]);
    expect(one.next).toBeUndefined();
  });
});

describe("paging edge cases", () => {
  it("limit pages the log; the last page has no next; after the end is an empty page", async () => {
    const log = await local.runlog.events("big");
    const ones = await allPages("limit=1");
    expect(ones.map((page) => page.events.map((event) => event.seq))).toEqual(
      log.map((event) => [event.seq]),
    );
    expect(ones.at(-1)!.next).toBeUndefined();
    const first = (await get("/runs/big/events?limit=2")).body;
    expect(first).toMatchObject({ runId: "big", next: 2 });
    const exact = (await get(`/runs/big/events?after=${log.length - 2}&limit=2`)).body;
    expect((exact.events as Listed[]).map((event) => event.seq)).toEqual([log.length - 1, log.length]);
    expect(exact.next).toBeUndefined();
    expect((await get(`/runs/big/events?after=${log.length}`)).body).toEqual({ runId: "big", events: [] });
    expect((await get("/runs/big/events?limit=1000")).status).toBe(200);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=1001", "limit"],
    ["limit=-1", "limit"],
    ["limit=1.5", "limit"],
    ["limit=ten", "limit"],
    ["after=-1", "after"],
    ["after=x", "after"],
    ["cursor=3", "cursor"],
  ])("?%s is a 400 naming %s", async (query, field) => {
    expect(expectError(await call(app, "GET", `/runs/big/events?${query}`), 400, "invalid_input").field).toBe(
      field,
    );
  });

  it.each([
    ["/runs/big/events/0", "seq"],
    ["/runs/big/events/x", "seq"],
    ["/runs/big/events/1.0", "seq"],
    ["/runs/big/events/1?part=-1", "part"],
    ["/runs/big/events/1?part=1", "part"],
    ["/runs/big/events/1?whole=1", "whole"],
  ])("%s is a 400 naming %s", async (path, field) => {
    expect(expectError(await call(app, "GET", path), 400, "invalid_input").field).toBe(field);
  });

  it("an unknown run, or a seq past the log, is a 404", async () => {
    expectError(await call(app, "GET", "/runs/nope/events"), 404, "not_found");
    expectError(await call(app, "GET", "/runs/nope/events/1"), 404, "not_found");
    const past = expectError(await call(app, "GET", "/runs/big/events/999"), 404, "not_found");
    expect(past.message).toBe("run big has no event at seq 999");
  });
});
