import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { errorMessage } from "../../core/errors.ts";
import type { McpServer } from "../../ports/mcp.ts";

const CLIENT_INFO = { name: "runlog", version: "1" };

/**
 * The most a message from a stdio server may be (the SDK's default, set here so the limit named
 * in an answer is the one in force): the SDK buffers a message whole before reading it.
 */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How long an HTTP server has to answer a ping after its transport reported an error. */
const PROBE_TIMEOUT_MS = 10_000;

/** How the SDK's stdio transport says a message was larger than its buffer (then it closes itself). */
const OVERSIZED = /^ReadBuffer exceeded maximum size/;

/**
 * A connection that failed under requests waiting on it, which the SDK may never reject (an HTTP
 * stream cut mid-answer waits for the request's timeout) or rejects only as "Connection closed".
 * `cause` is what the transport reported.
 */
export class ConnectionLostError extends Error {
  /** The server sent a message too large to read: it answered, and its answer is lost. */
  readonly oversized: boolean;
  /** How many requests were waiting when it failed: with one, the oversized answer was its. */
  readonly pending: number;

  constructor(message: string, options: { cause: unknown; oversized: boolean; pending: number }) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.oversized = options.oversized;
    this.pending = options.pending;
  }
}

/**
 * One client connected to one server, which fails every request waiting on it as soon as its
 * transport fails (ConnectionLostError), instead of leaving them to time out.
 */
export class Connection {
  private pending = 0;
  private failure: ConnectionLostError | undefined;
  private probing = false;
  private rejectLost: (error: ConnectionLostError) => void = () => {};
  private readonly lost = new Promise<never>((_, reject) => {
    this.rejectLost = reject;
  });

  private constructor(
    readonly client: Client,
    private readonly http: boolean,
    /** Told once when the connection ends, whether it closed or failed. */
    private readonly onEnd: () => void,
  ) {
    // Nobody may be waiting when it fails: the failure stays in `failure`, which the next use reads.
    // repair: the calls waiting get it, and a later call connects again (test/adapters/mcp/clients.test.ts)
    this.lost.catch(() => {});
  }

  /** Connect to `server`; `onEnd` is told when the connection closes or fails. */
  static async open(server: McpServer, onEnd: (ended: Connection) => void): Promise<Connection> {
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
            maxBufferSize: STDIO_MAX_MESSAGE_BYTES,
          })
        : new StreamableHTTPClientTransport(
            new URL(server.url),
            server.headers === undefined ? undefined : { requestInit: { headers: { ...server.headers } } },
          );
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      onEnd(connection);
    };
    const connection: Connection = new Connection(client, !("command" in server), end);
    // Set before connect: the SDK's Client chains its own handler after this one.
    transport.onerror = (error) => connection.transportError(error);
    client.onclose = end;
    // A failed connect closes the transport itself (the SDK's Client.connect).
    await client.connect(transport);
    return connection;
  }

  /** `work` on this connection, rejected with ConnectionLostError as soon as the connection fails. */
  async request<T>(work: (client: Client) => Promise<T>): Promise<T> {
    if (this.failure !== undefined) throw this.failure;
    this.pending++;
    try {
      return await Promise.race([work(this.client), this.lost]);
    } finally {
      this.pending--;
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /**
   * The transport reported an error. Over stdio, a message too large to read ends the connection
   * (the SDK closes it). Over HTTP, an error may be a cut stream the SDK retries, or a server
   * that is gone while a request waits for an answer that will never come: a ping tells which.
   */
  private transportError(error: Error): void {
    if (this.failure !== undefined) return;
    if (OVERSIZED.test(error.message)) {
      this.fail(
        `the server sent a message larger than the ${STDIO_MAX_MESSAGE_BYTES} bytes (10 MiB) a message over stdio may be, which cannot be read (${errorMessage(error)})`,
        error,
        true,
      );
      return;
    }
    if (!this.http || this.pending === 0 || this.probing) return;
    this.probing = true;
    this.client.ping({ timeout: PROBE_TIMEOUT_MS }).then(
      () => {
        this.probing = false;
      },
      (probe: unknown) => {
        this.probing = false;
        this.fail(
          `the connection failed (${errorMessage(error)}), and the server does not answer (${errorMessage(probe)})`,
          error,
          false,
        );
      },
    );
  }

  private fail(message: string, cause: unknown, oversized: boolean): void {
    if (this.failure !== undefined) return;
    this.failure = new ConnectionLostError(message, { cause, oversized, pending: this.pending });
    this.rejectLost(this.failure);
    this.onEnd();
    // Whatever the SDK still waits on is given up (closing a failed transport may fail too: the
    // failure that matters is already recorded); the next use connects again.
    // repair: a call after a failed connection is served by a new one (test/adapters/mcp/clients.test.ts)
    this.client.close().catch(() => {});
  }
}
