import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, InvalidInputError, McpUnavailableError } from "../../core/errors.ts";
import type { McpCallResult, McpClients, McpListedTool, McpServer } from "../../ports/mcp.ts";
import { Connection, ConnectionLostError } from "./connection.ts";
import { callText } from "./content.ts";

/** Codes the SDK rejects a request with when the connection, not the server, failed. */
const TRANSPORT_CODES: ReadonlySet<number> = new Set([ErrorCode.ConnectionClosed, ErrorCode.RequestTimeout]);

/** Whether the server itself answered (a JSON-RPC error response), rather than the connection failing. */
const answered = (error: unknown): error is McpError =>
  error instanceof McpError && !TRANSPORT_CODES.has(error.code);

/**
 * Whether the server answered this request with a message too large to read: its answer, which
 * asking again would only repeat. With other requests waiting too, whose answer it was is unknown,
 * and each is a failed connection.
 */
const unreadable = (error: unknown): error is ConnectionLostError =>
  error instanceof ConnectionLostError && error.oversized && error.pending === 1;

/**
 * One MCP client per server, made on first use and shared by every run of the runlog that owns
 * this: a stdio server is one process, an HTTP server one session. A client whose connection fails
 * is dropped, and the next use connects again, so a server that comes back is found.
 */
export class SdkMcpClients implements McpClients {
  private readonly clients = new Map<string, Promise<Connection>>();
  /** The clients that connected, by the same key: what drop and close close. */
  private readonly current = new Map<string, Connection>();
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
    const connection = await this.connected(server);
    try {
      const result = await connection.request((client) =>
        client.callTool(
          { name: call.tool, arguments: call.arguments, _meta: call.meta },
          undefined,
          // The tool's own timeout (runWithTimeout) answers the call first; this only frees the request.
          { signal: options.signal, timeout: options.timeoutMs + 1_000 },
        ),
      );
      return { content: callText(result), isError: result.isError === true };
    } catch (error) {
      if (options.signal.aborted) throw error;
      // The server answered the call with an error (an unknown tool, bad arguments): its answer.
      if (answered(error)) return { content: errorMessage(error), isError: true };
      // The server answered, and its answer cannot be read: calling again would only repeat it.
      if (unreadable(error)) {
        return {
          content: `MCP server ${server.name}'s answer to ${call.tool} could not be read: ${error.message}`,
          isError: true,
        };
      }
      await this.drop(server, connection);
      throw unavailable(server, `call ${call.tool}`, error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const connections = [...this.current.values()];
    this.clients.clear();
    this.current.clear();
    // A connection that never opened has nothing to close (the SDK closed it when it failed).
    await Promise.all(connections.map((connection) => connection.close()));
  }

  /**
   * `work` with the server's client. A client that fails (the server restarted: its process or
   * session is gone) is dropped and `work` tried once with a new connection; what then fails is a
   * McpUnavailableError, unless the server answered it.
   */
  private async using<T>(server: McpServer, what: string, work: (client: Client) => Promise<T>): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      const connection = await this.connected(server);
      try {
        return await connection.request(work);
      } catch (error) {
        if (answered(error)) throw unavailable(server, what, error);
        if (unreadable(error)) {
          throw new InvalidInputError(
            `MCP server ${server.name} (${where(server)}) could not ${what}: ${error.message}`,
            {
              field: "mcp",
              cause: error,
            },
          );
        }
        await this.drop(server, connection);
        last = error;
      }
    }
    throw unavailable(server, what, last);
  }

  /** The server's client, connecting it if there is none; a failed connection is not kept. */
  private async connected(server: McpServer): Promise<Connection> {
    if (this.closed)
      throw new McpUnavailableError(server.name, `MCP server ${server.name}: the runlog is closed`);
    const key = keyOf(server);
    let made = this.clients.get(key);
    if (made === undefined) {
      const connecting = Connection.open(server, (ended) => {
        // The process exited or the connection failed: the next use connects again. A connection
        // ending late (a process that takes its time to exit) leaves its successor in place.
        if (this.clients.get(key) === connecting) this.clients.delete(key);
        if (this.current.get(key) === ended) this.current.delete(key);
      });
      made = connecting;
      this.clients.set(key, made);
    }
    try {
      const connection = await made;
      if (this.clients.get(key) === made) this.current.set(key, connection);
      return connection;
    } catch (error) {
      // Not kept: the next use tries to connect again.
      if (this.clients.get(key) === made) this.clients.delete(key);
      throw unavailable(server, "connect", error);
    }
  }

  /** Forget a client whose connection failed, and close it: the next use connects again. */
  private async drop(server: McpServer, connection: Connection): Promise<void> {
    const key = keyOf(server);
    if (this.current.get(key) === connection) {
      this.current.delete(key);
      this.clients.delete(key);
    }
    await connection.close();
  }
}

/** Two agents may name a server alike and mean different ones: a client per configuration. */
const keyOf = (server: McpServer): string => JSON.stringify(server);

const where = (server: McpServer): string => ("command" in server ? `command ${server.command}` : server.url);

function unavailable(server: McpServer, what: string, cause: unknown): McpUnavailableError {
  if (cause instanceof McpUnavailableError) return cause;
  return new McpUnavailableError(
    server.name,
    `MCP server ${server.name} (${where(server)}) could not ${what}: ${errorMessage(cause)}`,
    { cause },
  );
}
