import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { isConnectionRefused } from "../dynamodb/errors.ts";
import { type EnsureOptions, ensureEmbeddedServer } from "./ensureServer.ts";

/**
 * Where the embedded server is, kept current. The server stops when idle (or
 * is killed), and its successor listens on another port; a refused
 * connection means nobody received the request, so finding the server again
 * and sending it once more is safe.
 */
export class EmbeddedEndpoint {
  private current: URL;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly dataDir: string,
    endpoint: string,
    private readonly options: EnsureOptions = {},
  ) {
    this.current = new URL(endpoint);
  }

  /** The server currently in use, as `http://127.0.0.1:PORT`. */
  get url(): string {
    return this.current.origin;
  }

  /** For the client's `endpoint` option: read on every request, so a new port is picked up. */
  readonly provide = async () => ({
    protocol: this.current.protocol,
    hostname: this.current.hostname,
    port: Number(this.current.port),
    path: "/",
  });

  /** Find (or start) the server again; concurrent failures share one look-up. */
  refresh(): Promise<void> {
    this.refreshing ??= ensureEmbeddedServer(this.dataDir, this.options)
      .then(({ endpoint }) => {
        this.current = new URL(endpoint);
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  /** Make every call of `client` survive the server going away between calls: refresh, then send once more. */
  install(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          if (!isConnectionRefused(error)) throw error;
          await this.refresh();
          return next(args);
        }
      },
      { step: "initialize", name: "runlogEmbeddedReconnect" },
    );
  }
}
