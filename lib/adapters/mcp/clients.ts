import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, McpUnavailableError } from "../../core/errors.ts";
import type { McpCallResult, McpClients, McpListedTool, McpServer } from "../../ports/mcp.ts";
import { callText } from "./content.ts";

const CLIENT_INFO = { name: "runlog", version: "1" };

/** Codes the SDK rejects a request with when the connection, not the server, failed. */
const TRANSPORT_CODES: ReadonlySet<number> = new Set([ErrorCode.ConnectionClosed, ErrorCode.RequestTimeout]);

/** Whether the server itself answered (a JSON-RPC error response), rather than the connection failing. */
const answered = (error: unknown): error is McpError =>
  error instanceof McpError && !TRANSPORT_CODES.has(error.code);

/**
 * One MCP client per server, made on first use and shared by every run of the runlog that owns
 * this: a stdio server is one process, an HTTP server one session. A client whose connection fails
 * is dropped, and the next use connects again, so a server that comes back is found.
 */
export class SdkMcpClients implements McpClients {
  private readonly clients = new Map<string, Promise<Client>>();
  /** The clients that connected, by the same key: what drop and close close. */
  private readonly current = new Map<string, Client>();
  private closed = false;

  async listTools(server: McpServer): Promise<McpListedTool[]> {
    return this.using(server, "list its tools", async (client) => {
      const tools: McpListedTool[] = [];
      let cursor: string | undefined;
      do {
        let page: Awaited<ReturnType<Client["listTools"]>>;
        try {
          page = await client.listTools(cursor === undefined ? {} : { cursor });
        } catch (error) {
          // A server without tools (no `tools` capability) has none to give.
          if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return [];
          throw error;
        }
        for (const tool of page.tools) {
          tools.push({
            name: tool.name,
            ...(tool.description === undefined ? {} : { description: tool.description }),
            inputSchema: tool.inputSchema as Record<string, unknown>,
            ...(tool.annotations?.idempotentHint === undefined
              ? {}
              : { annotations: { idempotentHint: tool.annotations.idempotentHint } }),
          });
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    });
  }

  async ready(server: McpServer): Promise<void> {
    await this.using(server, "answer a ping", (client) => client.ping());
  }

  async callTool(
    server: McpServer,
    call: { tool: string; arguments: Record<string, unknown>; meta: Record<string, string> },
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<McpCallResult> {
    const client = await this.connected(server);
    try {
      const result = await client.callTool(
        { name: call.tool, arguments: call.arguments, _meta: call.meta },
        undefined,
        // The tool's own timeout (runWithTimeout) answers the call first; this only frees the request.
        { signal: options.signal, timeout: options.timeoutMs + 1_000 },
      );
      return { content: callText(result), isError: result.isError === true };
    } catch (error) {
      if (options.signal.aborted) throw error;
      // The server answered the call with an error (an unknown tool, bad arguments): its answer.
      if (answered(error)) return { content: errorMessage(error), isError: true };
      await this.drop(server, client);
      throw unavailable(server, `call ${call.tool}`, error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const clients = [...this.current.values()];
    this.clients.clear();
    this.current.clear();
    // A connection that never opened has nothing to close (the SDK closed it when it failed).
    await Promise.all(clients.map((client) => client.close()));
  }

  /**
   * `work` with the server's client. A client that fails (the server restarted: its process or
   * session is gone) is dropped and `work` tried once with a new connection; what then fails is a
   * McpUnavailableError, unless the server answered it.
   */
  private async using<T>(server: McpServer, what: string, work: (client: Client) => Promise<T>): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      const client = await this.connected(server);
      try {
        return await work(client);
      } catch (error) {
        if (answered(error)) throw unavailable(server, what, error);
        await this.drop(server, client);
        last = error;
      }
    }
    throw unavailable(server, what, last);
  }

  /** The server's client, connecting it if there is none; a failed connection is not kept. */
  private async connected(server: McpServer): Promise<Client> {
    if (this.closed)
      throw new McpUnavailableError(server.name, `MCP server ${server.name}: the runlog is closed`);
    const key = keyOf(server);
    let made = this.clients.get(key);
    if (made === undefined) {
      const connecting = connect(server, () => {
        // The process exited or the connection closed: the next use connects again.
        if (this.clients.get(key) === connecting) this.clients.delete(key);
        this.current.delete(key);
      });
      made = connecting;
      this.clients.set(key, made);
    }
    try {
      const client = await made;
      if (this.clients.get(key) === made) this.current.set(key, client);
      return client;
    } catch (error) {
      // Not kept: the next use tries to connect again.
      if (this.clients.get(key) === made) this.clients.delete(key);
      throw unavailable(server, "connect", error);
    }
  }

  /** Forget a client whose connection failed, and close it: the next use connects again. */
  private async drop(server: McpServer, client: Client): Promise<void> {
    const key = keyOf(server);
    if (this.current.get(key) !== client) return;
    this.current.delete(key);
    this.clients.delete(key);
    await client.close();
  }
}

/** Two agents may name a server alike and mean different ones: a client per configuration. */
const keyOf = (server: McpServer): string => JSON.stringify(server);

async function connect(server: McpServer, onClose: () => void): Promise<Client> {
  const client = new Client(CLIENT_INFO);
  const transport =
    "command" in server
      ? new StdioClientTransport({
          command: server.command,
          ...(server.args === undefined ? {} : { args: [...server.args] }),
          // Put over the SDK's safe defaults (PATH, HOME …), not this process's whole environment.
          ...(server.env === undefined ? {} : { env: { ...server.env } }),
          // The server's own complaints go where this process's do.
          stderr: "inherit",
        })
      : new StreamableHTTPClientTransport(
          new URL(server.url),
          server.headers === undefined ? undefined : { requestInit: { headers: { ...server.headers } } },
        );
  client.onclose = onClose;
  // A failed connect closes the transport itself (the SDK's Client.connect).
  await client.connect(transport);
  return client;
}

function unavailable(server: McpServer, what: string, cause: unknown): McpUnavailableError {
  if (cause instanceof McpUnavailableError) return cause;
  const where = "command" in server ? `command ${server.command}` : server.url;
  return new McpUnavailableError(
    server.name,
    `MCP server ${server.name} (${where}) could not ${what}: ${errorMessage(cause)}`,
    { cause },
  );
}
