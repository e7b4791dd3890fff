import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, afterEach, describe, expect, inject, it } from "vitest";
import {
  defineAgent,
  InvalidInputError,
  type McpServer,
  McpUnavailableError,
  type Model,
  type ModelReply,
  type ModelRequest,
  RetryableError,
  type RunEvent,
} from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { storeEnv, tempDataDir, testEnv } from "../support/cli.ts";
import { spyModel } from "../support/spyModel.ts";
// @ts-expect-error: a plain ES module fixture, no types
import { makeServer } from "./fixtures/mcpServer.mjs";

const FIXTURE = join(import.meta.dirname, "fixtures", "mcpServer.mjs");

const callLookup = (id: string, order = "A1"): ModelReply => ({
  text: "",
  toolCalls: [{ id, name: "shop__lookup", arguments: JSON.stringify({ id: order }) }],
  stop: "tool_calls",
});
const answer = (text: string): ModelReply => ({ text, toolCalls: [], stop: "stop" });

const toolNames = (request: ModelRequest | undefined) => request?.tools.map((tool) => tool.name);
const resultOf = (log: readonly RunEvent[], callId: string) =>
  log.find((e) => e.type === "tool_result" && e.callId === callId);
const recorded = (log: readonly RunEvent[]) => (log[0]?.type === "run_started" ? log[0].mcpTools : undefined);

const agentWith = (server: McpServer) =>
  defineAgent({ name: "support", instructions: "Help with orders.", model: "spy:turns", mcp: [server] });

let opened: TestRunlog[] = [];
/** Data dirs made here (createTestRunlog removes only those it makes). */
const dirs: string[] = [];
let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(opened.map((runlog) => runlog.close()));
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  opened = [];
  servers = [];
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * A test runlog on the suite's store (SQLite, or DynamoDB under `npm run test:dynamodb`), with
 * fast workflow retries (testEnv).
 */
async function open(options: Parameters<typeof createTestRunlog>[0]): Promise<TestRunlog> {
  const dataDir = options.dataDir ?? tempDataDir("mcp");
  dirs.push(dataDir);
  const runlog = await createTestRunlog({ ...options, dataDir, env: testEnv(storeEnv(dataDir)) });
  opened.push(runlog);
  return runlog;
}

describe("MCP tools over stdio, through whole runs on one runlog", () => {
  it("records the server's list at start, sends it to the model, calls through tools/call with the run and call in _meta", async () => {
    const dir = tempDataDir("mcp");
    dirs.push(dir);
    const toolsFile = join(dir, "tools.txt");
    const seenFile = join(dir, "seen.jsonl");
    writeFileSync(toolsFile, "lookup,refund");
    writeFileSync(seenFile, "");
    const support = agentWith({
      name: "shop",
      command: process.execPath,
      args: [FIXTURE, toolsFile, seenFile],
    });
    const requests: ModelRequest[] = [];
    const turns = [
      {
        text: "",
        toolCalls: [
          { id: "c1", name: "shop__lookup", arguments: '{"id":"A1"}' },
          { id: "c2", name: "shop__refund", arguments: '{"id":"A1"}' },
        ],
        stop: "tool_calls",
      },
      answer("A1 shipped; refunds are closed."),
      callLookup("c3", "B2"),
      answer("B2 shipped too."),
    ];
    const first = await open({
      agents: { support },
      dataDir: join(dir, "data"),
      models: { spy: () => spyModel(turns, requests) },
    });
    // The suite's store: `npm run test:dynamodb` runs this on the DynamoDB adapter.
    expect(first.where).toMatch(inject("e2eStore") === "dynamodb" ? /^DynamoDB at / : /^SQLite, /);
    const run = await first.runlog.start({ agent: "support", input: "Where is A1? Refund it." });
    expect(run).toMatchObject({ status: "completed", output: "A1 shipped; refunds are closed." });
    const log = await first.events(run.runId);

    // The list is in the log, as the server gave it: names namespaced, schema kept, hint read.
    const tools = recorded(log);
    expect(tools?.map((tool) => [tool.name, tool.server, tool.tool, tool.idempotent])).toEqual([
      ["shop__lookup", "shop", "lookup", true],
      ["shop__refund", "shop", "refund", false],
    ]);
    expect(tools?.[0]?.inputSchema).toMatchObject({ type: "object", properties: { id: { type: "string" } } });
    // What the model was sent is the recorded list, schema and all.
    expect(requests[0]?.tools).toEqual(
      tools?.map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
      })),
    );
    // The text content is the result; the server's isError an error result.
    expect(resultOf(log, "c1")).toMatchObject({ content: "order A1: shipped", isError: false });
    expect(resultOf(log, "c2")).toMatchObject({ content: "refunds of A1 are closed", isError: true });

    // A second run of the same runlog shares the server's one process.
    const again = await first.runlog.start({ agent: "support", input: "And A1?" });
    const seen = readFileSync(seenFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(seen.map((call) => call.meta)).toEqual([
      { "runlog/runId": run.runId, "runlog/callId": "c1" },
      { "runlog/runId": run.runId, "runlog/callId": "c2" },
      { "runlog/runId": again.runId, "runlog/callId": "c1" },
      { "runlog/runId": again.runId, "runlog/callId": "c2" },
    ]);
    expect(new Set(seen.map((call) => call.pid)).size).toBe(1);
    await first.close();
    opened = [];

    // The server changes its list; a new runlog on the same store goes on with the run.
    writeFileSync(toolsFile, "track");
    requests.length = 0;
    const second = await open({
      agents: { support },
      dataDir: join(dir, "data"),
      models: { spy: () => spyModel(turns, requests) },
    });
    const fresh = await second.runlog.start({ agent: "support", input: "Track P9" });
    // A new run records what the server serves now …
    expect(recorded(await second.events(fresh.runId))?.map((tool) => tool.name)).toEqual(["shop__track"]);
    requests.length = 0;
    // … and the old run is still sent what it recorded, never the new list.
    const sent = await second.runlog.send(run.runId, "And B2?");
    expect(toolNames(requests.find((r) => r.runId === run.runId && r.turn === 2))).toEqual([
      "shop__lookup",
      "shop__refund",
    ]);
    expect(sent.status).toBe("completed");
    // The server no longer has lookup: its answer is the call's error result, not a lost call.
    const after = await second.events(run.runId);
    expect(resultOf(after, "c3")).toMatchObject({
      isError: true,
      content: expect.stringContaining("lookup"),
    });
    // A fork keeps the recorded list too.
    const fork = await second.runlog.fork({ runId: run.runId, atSeq: 3 });
    expect(recorded(await second.events(fork.runId))).toEqual(tools);
  });
});

/**
 * An MCP server over Streamable HTTP on `port` (0: any free one), stateless: a new McpServer per
 * request, as a Lambda would serve it. `seen` is told each call.
 */
async function httpServer(
  tools: string[],
  port = 0,
  seen: (call: unknown) => void = () => {},
  /** By tool: how many of its `tools/call` requests to cut off (the socket destroyed) before they reach it. */
  cut: Record<string, number> = {},
  /** Told each `tools/call`'s response once its head is on the wire (an SSE answer's stream is open). */
  answering: (res: ServerResponse) => void = () => {},
) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const tool = body?.method === "tools/call" ? String(body.params?.name) : undefined;
    if (tool !== undefined && (cut[tool] ?? 0) > 0) {
      cut[tool] = (cut[tool] ?? 0) - 1;
      req.socket.destroy();
      return;
    }
    const mcp = makeServer(tools, seen);
    const transport = new StreamableHTTPServerTransport({});
    if (tool !== undefined) void headSent(res).then(() => answering(res));
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Once the response's head was handed to the socket (an SSE answer sends it before any event). */
async function headSent(res: ServerResponse): Promise<void> {
  while (!res.headersSent || (res.socket?.writableLength ?? 0) > 0) {
    await new Promise((done) => setImmediate(done));
  }
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  servers = servers.filter((s) => s !== server);
}

describe("MCP tools over Streamable HTTP", () => {
  it("a server that is down fails the call retryably; the run converges on a resume once it is back, with its recorded list", async () => {
    const seen: unknown[] = [];
    const first = await httpServer(["lookup"], 0, (call) => seen.push(call));
    const support = agentWith({ name: "shop", url: `http://127.0.0.1:${first.port}/mcp` });
    const requests: ModelRequest[] = [];
    const turns = [callLookup("c1"), answer("A1 has shipped.")];
    const model = spyModel(turns, requests);
    // The server goes down after the run recorded its list, while the model is choosing the call.
    const downing: Model = {
      spec: model.spec,
      call: async (request) => {
        if (request.turn === 0) await stop(first.server);
        return model.call(request);
      },
    };
    const runlog = await open({
      agents: { support },
      models: { spy: () => downing },
      onBackgroundError: () => {},
    });
    const failure = await runlog.runlog
      .start({ agent: "support", input: "Where is A1?", runId: "down" })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // The execution failed retryably (its RunTool retries spent), because the server was down.
    expect(failure).toBeInstanceOf(RetryableError);
    expect((failure as Error).cause).toBeInstanceOf(McpUnavailableError);
    expect((failure as Error).cause).toMatchObject({ server: "shop" });
    const [run] = (await runlog.runlog.list({})).runs;
    expect(run?.runId).toBe((failure as RetryableError).runId);
    const log = await runlog.events(run!.runId);
    expect(recorded(log)?.map((tool) => tool.name)).toEqual(["shop__lookup"]);
    // The call never started: nothing ran, nothing was answered for it, and it can still run.
    expect(log.some((e) => e.type === "tool_started" || e.type === "tool_result")).toBe(false);
    expect(log.at(-1)).toMatchObject({ type: "model_response", toolCalls: [{ id: "c1" }] });
    expect(seen).toEqual([]);
    // The same start again, the server still down: the run exists with its list, so no server is asked.
    const retried = await runlog.runlog.start({ agent: "support", input: "Where is A1?", runId: "down" });
    expect(retried).toMatchObject({ runId: "down", created: false });

    // Back, on the same port, with another list: the resume runs the call and the model is still
    // sent the recorded list.
    await httpServer(["track", "lookup"], first.port, (call) => seen.push(call));
    const resumed = await runlog.runlog.resume({ runId: run!.runId });
    expect(resumed).toMatchObject({ status: "completed", output: "A1 has shipped." });
    const after = await runlog.events(run!.runId);
    expect(resultOf(after, "c1")).toMatchObject({ content: "order A1: shipped", isError: false });
    expect(seen).toEqual([
      { tool: "lookup", args: { id: "A1" }, meta: { "runlog/runId": run!.runId, "runlog/callId": "c1" } },
    ]);
    expect(toolNames(requests.at(-1))).toEqual(["shop__lookup"]);
  });
});

describe("a connection that fails mid-call", () => {
  it("fails the step; its retry runs an idempotentHint tool again and answers the other as interrupted", async () => {
    const seen: unknown[] = [];
    const cut = { lookup: 1, refund: 1 };
    const { port } = await httpServer(["lookup", "refund"], 0, (call) => seen.push(call), cut);
    const support = agentWith({ name: "shop", url: `http://127.0.0.1:${port}/mcp` });
    const requests: ModelRequest[] = [];
    const turns: ModelReply[] = [
      {
        text: "",
        toolCalls: [
          { id: "c1", name: "shop__lookup", arguments: '{"id":"A1"}' },
          { id: "c2", name: "shop__refund", arguments: '{"id":"A1"}' },
        ],
        stop: "tool_calls",
      },
      answer("Done."),
    ];
    const runlog = await open({
      agents: { support },
      models: { spy: () => spyModel(turns, requests) },
    });
    const run = await runlog.runlog.start({ agent: "support", input: "Look up and refund A1" });
    expect(run.status).toBe("completed");
    expect(cut).toEqual({ lookup: 0, refund: 0 });
    const log = await runlog.events(run.runId);
    // Both calls started once; neither was lost.
    expect(
      log.filter((e) => e.type === "tool_started").map((e) => e.type === "tool_started" && e.callId),
    ).toEqual(expect.arrayContaining(["c1", "c2"]));
    expect(resultOf(log, "c1")).toMatchObject({ content: "order A1: shipped", isError: false, rerun: true });
    expect(resultOf(log, "c2")).toMatchObject({ isError: true, interrupted: true });
    // Only the idempotent tool reached the server, on its re-run.
    expect(seen).toEqual([
      { tool: "lookup", args: { id: "A1" }, meta: { "runlog/runId": run.runId, "runlog/callId": "c1" } },
    ]);
  });
});

/** Bounds a wait on a call whose own timeout is longer (60 s), so it cannot hang; no duration is asserted. */
const BOUND_MS = 30_000;

describe("a server's answer the connection cannot carry, or a server gone mid-call", () => {
  it("an answer larger than a stdio message may be is the call's error result naming the limit, the tool called once", async () => {
    const dir = tempDataDir("mcp");
    dirs.push(dir);
    const toolsFile = join(dir, "tools.txt");
    const seenFile = join(dir, "seen.jsonl");
    writeFileSync(toolsFile, "huge");
    writeFileSync(seenFile, "");
    const support = agentWith({
      name: "shop",
      command: process.execPath,
      args: [FIXTURE, toolsFile, seenFile],
    });
    const turns: ModelReply[] = [
      {
        text: "",
        toolCalls: [{ id: "c1", name: "shop__huge", arguments: JSON.stringify({ bytes: 12 * 1024 * 1024 }) }],
        stop: "tool_calls",
      },
      answer("Too big to read."),
    ];
    const runlog = await open({ agents: { support }, models: { spy: () => spyModel(turns, []) } });
    const run = await runlog.runlog.start({ agent: "support", input: "Everything, please" });
    expect(run).toMatchObject({ status: "completed", output: "Too big to read." });
    const log = await runlog.events(run.runId);
    // The tool is idempotent, and still not run again: its answer was given, and would not fit again.
    expect(recorded(log)?.[0]).toMatchObject({ name: "shop__huge", idempotent: true });
    expect(resultOf(log, "c1")).toMatchObject({
      isError: true,
      content: expect.stringContaining(`${10 * 1024 * 1024} bytes`),
    });
    expect(resultOf(log, "c1")).not.toHaveProperty("interrupted");
    expect(readFileSync(seenFile, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it(
    "an HTTP server killed mid-call fails the step at once, and its retry answers the call as interrupted",
    async () => {
      const seen: unknown[] = [];
      let server: Server | undefined;
      const { port, server: made } = await httpServer(
        ["slow"],
        0,
        (call) => seen.push(call),
        {},
        () => {
          if (server !== undefined) void stop(server);
        },
      );
      server = made;
      const support = agentWith({ name: "shop", url: `http://127.0.0.1:${port}/mcp` });
      const turns: ModelReply[] = [
        {
          text: "",
          // Longer than the test may take: only the connection's failure can end it in time.
          toolCalls: [{ id: "c1", name: "shop__slow", arguments: JSON.stringify({ ms: 120_000 }) }],
          stop: "tool_calls",
        },
        answer("The server went away."),
      ];
      const runlog = await open({ agents: { support }, models: { spy: () => spyModel(turns, []) } });
      const run = await runlog.runlog.start({ agent: "support", input: "Take your time" });
      expect(run).toMatchObject({ status: "completed", output: "The server went away." });
      const log = await runlog.events(run.runId);
      expect(seen).toHaveLength(1);
      expect(resultOf(log, "c1")).toMatchObject({ isError: true, interrupted: true });
    },
    BOUND_MS,
  );
});

describe("an agent's mcp list is checked where it is written", () => {
  const refused = (mcp: unknown) => {
    try {
      defineAgent({ name: "a", instructions: "", model: "spy:x", mcp: mcp as McpServer[] });
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it.each([
    ["no command and no url", [{ name: "shop" }], "mcp[0]", "no command and no url"],
    [
      "two servers with one name",
      [
        { name: "shop", command: "node" },
        { name: "shop", url: "http://localhost:1/mcp" },
      ],
      "mcp[1].name",
      'repeats "shop"',
    ],
    ["a name with bad characters", [{ name: "my.shop", command: "node" }], "mcp[0].name", '"my.shop"'],
    ["a name with the separator", [{ name: "my__shop", command: "node" }], "mcp[0].name", "without"],
    ["a url that is not http", [{ name: "shop", url: "file:///tmp/x" }], "mcp[0].url", "http(s) URL"],
    ["both command and url", [{ name: "shop", command: "node", url: "http://x/" }], "mcp[0]", "both"],
    ["args that are not strings", [{ name: "shop", command: "node", args: [1] }], "mcp[0].args", "strings"],
    ["not a list", { name: "shop", command: "node" }, "mcp", "array"],
  ])("refuses %s, naming the field", (_, mcp, field, words) => {
    const error = refused(mcp);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field, message: expect.stringContaining(words) });
    expect((error as Error).message).toMatch(/^agent "a": /);
  });

  it("takes a stdio and an HTTP server", () => {
    expect(
      refused([
        { name: "files", command: "npx", args: ["-y", "some-server"], env: { TOKEN: "x" } },
        { name: "crm", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer x" } },
      ]),
    ).toBeUndefined();
  });
});
