import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { SdkMcpClients } from "../../../lib/adapters/mcp/clients.ts";
import { ConnectionLostError, STDIO_MAX_MESSAGE_BYTES } from "../../../lib/adapters/mcp/connection.ts";
import { McpUnavailableError } from "../../../lib/core/errors.ts";
import type { McpServer } from "../../../lib/ports/mcp.ts";
// @ts-expect-error: a plain ES module fixture, no types
import { makeServer } from "../../e2e/fixtures/mcpServer.mjs";

const FIXTURE = join(import.meta.dirname, "..", "..", "e2e", "fixtures", "mcpServer.mjs");

const meta = { "runlog/runId": "r1", "runlog/callId": "c1" };
const call = (tool: string, args: Record<string, unknown>) => ({ tool, arguments: args, meta });
/** A call's options: the adapter's own request timeout is far beyond any test's. */
const options = () => ({ signal: new AbortController().signal, timeoutMs: 120_000 });

let cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function clientsUnderTest(): SdkMcpClients {
  const clients = new SdkMcpClients();
  cleanups.push(() => clients.close());
  return clients;
}

/** The fixture on stdio serving `tools`; `seen()` reads the calls it was made. */
function stdioServer(tools: string): { server: McpServer; seen: () => { tool: string; pid: number }[] } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-clients-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const toolsFile = join(dir, "tools.txt");
  const seenFile = join(dir, "seen.jsonl");
  writeFileSync(toolsFile, tools);
  writeFileSync(seenFile, "");
  return {
    server: { name: "shop", command: process.execPath, args: [FIXTURE, toolsFile, seenFile] },
    seen: () =>
      readFileSync(seenFile, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line)),
  };
}

/**
 * The fixture over Streamable HTTP with sessions (one McpServer per session), as a long-lived
 * server serves. `answering` is told each tools/call's response, once its head is on the wire.
 */
async function httpServer(tools: string[], answering: (res: ServerResponse) => void): Promise<Server> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? sessions.get(id) : undefined;
    if (transport === undefined) {
      const made = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, made);
        },
      });
      transport = made;
      await makeServer(tools, () => {}).connect(transport);
    }
    if (body?.method === "tools/call") void sent(res).then(() => answering(res));
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  cleanups.push(() => kill(server));
  return server;
}

/** Once the response's head was handed to the socket (an SSE answer sends it before any event). */
async function sent(res: ServerResponse): Promise<void> {
  while (!res.headersSent || (res.socket?.writableLength ?? 0) > 0) {
    await new Promise((done) => setImmediate(done));
  }
}

/** As a killed server: every connection cut, no new one taken. */
async function kill(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
}

describe("an answer larger than a stdio message may be", () => {
  it("is the call's error result naming the limit, asked once; the next call connects again", async () => {
    const { server, seen } = stdioServer("huge,lookup");
    const clients = clientsUnderTest();
    await clients.ready(server);

    const result = await clients.callTool(server, call("huge", { bytes: 12 * 1024 * 1024 }), options());
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`${STDIO_MAX_MESSAGE_BYTES} bytes`);
    expect(result.content).toContain("huge");

    // The connection the answer broke is replaced: the next call is answered, by a new process.
    const next = await clients.callTool(server, call("lookup", { id: "A1" }), options());
    expect(next).toEqual({ content: "order A1: shipped", isError: false });
    const calls = seen();
    expect(calls.map((c) => c.tool)).toEqual(["huge", "lookup"]);
    expect(calls[0]?.pid).not.toBe(calls[1]?.pid);
  });

  it("fails a tools/list it breaks as permanent (InvalidInputError on mcp), not as a server that is down", async () => {
    // A list with a description too large to read: the listing cannot succeed by asking again.
    const { server } = stdioServer("lookup");
    const big: McpServer = { ...server, env: { FIXTURE_HUGE_DESCRIPTION: String(12 * 1024 * 1024) } };
    const clients = clientsUnderTest();
    const error = await clients.listTools(big).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(McpUnavailableError);
    expect(error).toMatchObject({ name: "InvalidInputError", field: "mcp" });
    expect((error as Error).message).toContain(`${STDIO_MAX_MESSAGE_BYTES} bytes`);
  });
});

/** Bounds a wait on a call whose own timeout is longer (120 s), so it cannot hang; no duration is asserted. */
const BOUND_MS = 30_000;

describe("an HTTP server that goes away mid-call", () => {
  it(
    "fails the call as a lost connection as soon as the server does not answer, not at its timeout",
    async () => {
      let answering = () => {};
      const started = new Promise<void>((resolve) => {
        answering = resolve;
      });
      const server = await httpServer(["slow"], () => answering());
      const mcp: McpServer = {
        name: "shop",
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
      };
      const clients = clientsUnderTest();
      await clients.ready(mcp);

      const pending = clients.callTool(mcp, call("slow", { ms: 60_000 }), options()).then(
        () => undefined,
        (e: unknown) => e,
      );
      // The call is under way, its answer's stream open: the server dies.
      await started;
      await kill(server);
      const error = await pending;

      expect(error).toBeInstanceOf(McpUnavailableError);
      expect(error).toMatchObject({ server: "shop" });
      // Its cause is the connection's failure, as the transport reported it: not a timeout.
      expect((error as Error).cause).toBeInstanceOf(ConnectionLostError);
      expect((error as Error).cause).toMatchObject({ oversized: false });
    },
    BOUND_MS,
  );
});
