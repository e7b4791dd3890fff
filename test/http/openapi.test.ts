import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateRunId } from "../../lib/core/ids.ts";
import { MAX_JSON_DEPTH, MAX_METADATA_BYTES } from "../../lib/core/metadata.ts";
import { MAX_PROVIDER_OPTIONS_BYTES } from "../../lib/core/modelSettings.ts";
import { openApiDocument, openApiPath } from "../../lib/http/openapi.ts";
import { ERROR_CODES, ROUTE_SPECS } from "../../lib/http/routeSpecs.ts";
import { MAX_TEXT_BYTES } from "../../lib/http/schemas.ts";
import { OPENAPI_FILE, openApiText, ROUTES_PAGE, routesPageText } from "../support/openapi.ts";
import { call, openApp } from "./support.ts";

/** The OpenAPI document: served, committed, and in step with the app's routes. */
let t: Awaited<ReturnType<typeof openApp>>;
beforeAll(async () => {
  t = await openApp("http-openapi");
});
afterAll(() => t.close());

type Doc = { paths: Record<string, Record<string, unknown>> };

describe("GET /openapi.json", () => {
  it("answers the document the route specs make", async () => {
    const answer = await call(t.app, "GET", "/openapi.json");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(openApiDocument());
    expect(answer.body).toMatchObject({ openapi: "3.1.0" });
  });

  it("is served without authentication where every other route asks for it", async () => {
    const locked = await openApp("http-openapi-locked", {
      localToken: "secret-token",
      principal: () => undefined,
    });
    try {
      expect((await call(locked.app, "GET", "/openapi.json")).status).toBe(200);
      expect((await call(locked.app, "GET", "/runs")).status).toBe(401);
    } finally {
      await locked.close();
    }
  });

  it("refuses other methods with the one it takes", async () => {
    const post = await call(t.app, "POST", "/openapi.json", {});
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });
});

describe("a third-party validator (Redocly, every rule of its strictest ruleset)", () => {
  it("finds no problem in the document", async () => {
    const config = await createConfig({ extends: ["recommended-strict"] });
    const problems = await lintFromString({ source: openApiText(), absoluteRef: "openapi.json", config });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });
});

describe("the committed copy", () => {
  it("is what `npm run openapi` writes now (run it after changing a route or a schema)", () => {
    expect(readFileSync(OPENAPI_FILE, "utf8")).toBe(openApiText());
  });

  it("and the routes' reference page written from it: every operation, and every schema's fields", () => {
    const page = readFileSync(ROUTES_PAGE, "utf8");
    expect(page).toBe(routesPageText());
    const document = JSON.parse(openApiText()) as Doc & { components: { schemas: Record<string, unknown> } };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of Object.keys(item))
        expect(page).toContain(`### \`${method.toUpperCase()} ${path}\``);
    }
    for (const name of Object.keys(document.components.schemas)) expect(page).toContain(`### ${name}\n`);
    expect(page).toContain("| `limits.maxTurns` | integer |  | at least 1 |");
  });
});

describe("routes and paths, both ways", () => {
  const served = () =>
    new Set(
      t.app.routes
        .filter((route) => route.method === "GET" || route.method === "POST")
        .map((route) => `${route.method} ${openApiPath(route.path)}`),
    );
  const described = () =>
    new Set(
      Object.entries((openApiDocument() as Doc).paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );

  it("every route the app serves is in the document", () => {
    expect([...served()].filter((route) => !described().has(route))).toEqual([]);
  });

  it("every operation in the document is a route the app serves", () => {
    expect([...described()].filter((route) => !served().has(route))).toEqual([]);
  });

  it("describes the route specs and nothing else", () => {
    expect(described().size).toBe(
      Object.values(ROUTE_SPECS).reduce((sum, methods) => sum + Object.keys(methods).length, 0),
    );
  });
});

describe("the error codes", () => {
  it("list every code the HTTP layer answers with", () => {
    const dir = join(import.meta.dirname, "../../lib/http");
    const found = new Set<string>();
    for (const file of readdirSync(dir).filter((name) => name.endsWith(".ts"))) {
      const source = readFileSync(join(dir, file), "utf8");
      for (const match of source.matchAll(/HttpError\(\s*\d{3},\s*"([a-z_]+)"/g)) found.add(match[1] ?? "");
      for (const match of source.matchAll(/answer\(\d{3}, "([a-z_]+)"/g)) found.add(match[1] ?? "");
      for (const match of source.matchAll(/error: { code: "([a-z_]+)"/g)) found.add(match[1] ?? "");
    }
    found.add("invalid_input");
    expect(found.size).toBeGreaterThan(10);
    expect([...found].filter((code) => !(ERROR_CODES as readonly string[]).includes(code))).toEqual([]);
  });

  it("are what a refused request answers", async () => {
    const answer = await call(t.app, "POST", "/runs", { agent: "demo" });
    expect(answer.status).toBe(400);
    expect(ERROR_CODES).toContain((answer.body.error as { code: string }).code);
  });
});

/** The fields each body requires, so that the unknown one is the first thing refused. */
const REQUIRED: Record<string, Record<string, unknown>> = {
  "POST /runs": { agent: "demo", input: "hi" },
  "POST /runs/some-run/messages": { message: "hi" },
  "POST /runs/replays": { runIds: ["some-run"], model: "scripted:demo" },
  "POST /runs/some-run/approvals/call-1": { approved: true },
};

describe("what the document says the handlers check", () => {
  const operations = Object.entries(ROUTE_SPECS).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, spec]) => ({
      method,
      url: openApiPath(path).replace("{id}", "some-run").replace("{seq}", "1").replace("{callId}", "call-1"),
      spec,
    })),
  );

  it.each(operations.filter((op) => op.spec.body).map((op) => [op.method, op.url] as const))(
    "%s %s refuses a body field the document does not list (additionalProperties: false)",
    async (method, url) => {
      const required = REQUIRED[`${method} ${url}`] ?? {};
      const answer = await call(t.app, method, url, { ...required, notInTheDocument: 1 });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: "invalid_input", field: "notInTheDocument" });
    },
  );

  it.each(
    operations.filter((op) => op.spec.query && !op.spec.stream).map((op) => [op.method, op.url] as const),
  )("%s %s refuses a query parameter the document does not list", async (method, url) => {
    const answer = await call(t.app, method, `${url}?notInTheDocument=1`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: "invalid_input", field: "notInTheDocument" });
  });
});

describe("the limits the document states are those the server enforces", () => {
  const doc = openApiDocument() as {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: { name: string; in: string; schema: Json }[]; responses: Record<string, unknown> }
      >
    >;
    components: { schemas: Record<string, { properties: Record<string, Json> }> };
  };
  type Json = Record<string, unknown> & {
    pattern?: string;
    minLength?: number;
    maxLength?: number;
    description?: string;
  };
  const header = (path: string, name: string) =>
    doc.paths[path]?.get?.parameters?.find((p) => p.in === "header" && p.name === name)?.schema;

  it("/lifecycle: Last-Event-ID is described as its handler reads it", () => {
    const pattern = new RegExp(header("/lifecycle", "Last-Event-ID")?.pattern ?? "(?!)");
    expect([pattern.test("run-1/7"), pattern.test("7")]).toEqual([true, false]);
  });

  it("/runs/{id}/live: Last-Event-ID is described as the seq its handler reads, an integer", () => {
    expect(header("/runs/{id}/live", "Last-Event-ID")).toMatchObject({ type: "integer", minimum: 0 });
  });

  it("every route lists 403 (`runlog serve`'s forbidden_host and forbidden_origin; redrive's forbidden)", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        expect([method, path, Object.keys(operation.responses)]).toEqual([
          method,
          path,
          expect.arrayContaining(["403"]),
        ]);
      }
    }
  });

  it("a run id's pattern answers as validateRunId does", () => {
    const schema = doc.components.schemas.StartRunBody?.properties.runId as Json;
    const pattern = new RegExp(schema.pattern ?? "(?!)");
    for (const id of [
      "a",
      "run-1.x_Y",
      "A".repeat(128),
      "A".repeat(129),
      "",
      "-a",
      ".a",
      "a/b",
      "a b",
      "é",
    ]) {
      let valid = true;
      try {
        validateRunId(id);
      } catch {
        valid = false;
      }
      expect([id, pattern.test(id)]).toEqual([id, valid]);
    }
    expect(schema).toMatchObject({ minLength: 1, maxLength: 128 });
    expect(doc.components.schemas.ForkRunBody?.properties.forkId).toMatchObject({ pattern: schema.pattern });
  });

  it("states the text, metadata and providerOptions limits from the server's own constants", () => {
    const body = doc.components.schemas.StartRunBody?.properties ?? {};
    expect(body.input).toMatchObject({ minLength: 1, maxLength: MAX_TEXT_BYTES });
    expect(body.input?.description).toContain(`${MAX_TEXT_BYTES / 1024} KB`);
    expect(body.metadata?.description).toContain(`${MAX_METADATA_BYTES} bytes`);
    const settings = body.modelSettings as { properties: Record<string, Json> };
    expect(settings.properties.providerOptions?.description).toContain(`${MAX_PROVIDER_OPTIONS_BYTES} bytes`);
    expect(settings.properties.providerOptions?.description).toContain(`${MAX_JSON_DEPTH} levels`);
  });
});
