/** An MCP server an agent takes tools from, started as a process that speaks MCP on stdio. */
export interface McpStdioServer {
  /** Its tools are named `<name>__<tool>` for the model: 1-32 letters, digits, "-" or "_", no "__". */
  name: string;
  /** The program to run, e.g. `npx` or `node`. */
  command: string;
  /** @default none */
  args?: readonly string[];
  /** Variables for the process, on top of the SDK's safe defaults (PATH, HOME …). @default none */
  env?: Readonly<Record<string, string>>;
}

/** An MCP server an agent takes tools from over Streamable HTTP. */
export interface McpHttpServer {
  /** Its tools are named `<name>__<tool>` for the model: 1-32 letters, digits, "-" or "_", no "__". */
  name: string;
  /** The server's MCP endpoint, http(s). */
  url: string;
  /** Sent with every request (an Authorization header …). @default none */
  headers?: Readonly<Record<string, string>>;
}

/** An MCP server an agent takes tools from (defineAgent `mcp`): a stdio process or a Streamable HTTP endpoint. */
export type McpServer = McpStdioServer | McpHttpServer;

/** A tool as a server lists it (`tools/list`), the parts runlog records. */
export interface McpListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { idempotentHint?: boolean };
}

/** What a `tools/call` came to: its text content, and whether the server says it is an error. */
export interface McpCallResult {
  content: string;
  isError: boolean;
}

/**
 * The MCP clients of one runlog: one per server, connected on first use and kept until close.
 * Every method throws McpUnavailableError when the server cannot be reached or its connection
 * fails, so a caller can tell a server that is down from a tool that failed.
 */
export interface McpClients {
  /** Every tool the server lists now (all pages). */
  listTools(server: McpServer): Promise<McpListedTool[]>;
  /** Connect if not connected, and ping: the server answers now. */
  ready(server: McpServer): Promise<void>;
  /** `tools/call` with `meta` as its `_meta`; a JSON-RPC error the server answers with is an error result. */
  callTool(
    server: McpServer,
    call: { tool: string; arguments: Record<string, unknown>; meta: Record<string, string> },
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<McpCallResult>;
  /** Close every client (and end every server process this runlog started). */
  close(): Promise<void>;
}
