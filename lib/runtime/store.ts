import { relative, resolve } from "node:path";
import type { ConnectOptions } from "../adapters/dynamodb/connect.ts";
import type { Durability } from "../adapters/sqlite/connection.ts";
import { SqliteEventStore, sqliteFile } from "../adapters/sqlite/sqliteEventStore.ts";
import { InvalidInputError } from "../core/errors.ts";
import type { EventStore } from "../ports/eventStore.ts";

/** Whether this environment points runlog at DynamoDB rather than the local SQLite file. */
export const wantsDynamo = (env: NodeJS.ProcessEnv) =>
  Boolean(env.RUNLOG_DYNAMODB_ENDPOINT || env.RUNLOG_TABLE);

export interface StoreOptions extends ConnectOptions {
  /** Where the local store's file lives. @default ".runlog" */
  dataDir?: string;
}

export interface OpenStore {
  store: EventStore;
  /** One line saying where events are stored. */
  where: string;
  close(): Promise<void>;
}

const shown = (path: string) => {
  const rel = relative(process.cwd(), path);
  return rel.startsWith("..") || rel === "" ? path : rel;
};

/**
 * The event store this environment points at: DynamoDB when
 * `RUNLOG_DYNAMODB_ENDPOINT` or `RUNLOG_TABLE` is set (see connectDynamo),
 * else the SQLite file in `dataDir`, opened in this process (no server).
 * The one place the store is chosen. The AWS SDK loads only when DynamoDB is
 * chosen: a local command does not pay for it.
 */
export async function connectStore(options: StoreOptions = {}): Promise<OpenStore> {
  const env = options.env ?? process.env;
  if (wantsDynamo(env)) {
    const { connectDynamoStore } = await import("../adapters/dynamodb/connect.ts");
    return connectDynamoStore({ ...options, env });
  }
  const durability = durabilityFrom(env.RUNLOG_DURABILITY);
  const store = new SqliteEventStore({ file: sqliteFile(resolve(options.dataDir ?? ".runlog")), durability });
  return { store, where: `SQLite, ${shown(store.file)}`, close: () => store.close() };
}

/** `RUNLOG_DURABILITY`: `full` (the default: every commit synced) or `normal` (see Durability). */
function durabilityFrom(value: string | undefined): Durability {
  if (value === undefined || value === "" || value === "full") return "full";
  if (value === "normal") return "normal";
  throw new InvalidInputError(`RUNLOG_DURABILITY must be full or normal, got ${JSON.stringify(value)}`);
}
