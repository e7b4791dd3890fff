import { relative, resolve } from "node:path";
import type { EventStore } from "../ports/eventStore.ts";
import type { DynamoTarget } from "./dynamodb/connect.ts";
import type { Durability } from "./sqlite/connection.ts";
import { SqliteEventStore, sqliteFile } from "./sqlite/sqliteEventStore.ts";

export interface StoreOptions {
  /** Where the local store's file lives. @default ".runlog" */
  dataDir?: string;
  /** How the SQLite store commits (see Durability). @default "full" */
  durability?: Durability;
  /** Store the events in this DynamoDB table instead of the SQLite file. */
  dynamodb?: DynamoTarget;
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
 * The event store the options name: the DynamoDB table of `dynamodb` when given (see
 * connectDynamo), else the SQLite file in `dataDir`, opened in this process (no server).
 * The one place the store is chosen. The AWS SDK loads only when DynamoDB is
 * chosen: a local command does not pay for it.
 */
export async function connectStore(options: StoreOptions = {}): Promise<OpenStore> {
  if (options.dynamodb) {
    const { connectDynamoStore } = await import("./dynamodb/connect.ts");
    return connectDynamoStore(options.dynamodb);
  }
  const store = new SqliteEventStore({
    file: sqliteFile(resolve(options.dataDir ?? ".runlog")),
    durability: options.durability ?? "full",
  });
  return { store, where: `SQLite, ${shown(store.file)}`, close: () => store.close() };
}
