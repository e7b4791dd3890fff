import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

type Dynalite = (options: { createTableMs: number; deleteTableMs: number; updateTableMs: number }) => Server;

/**
 * dynalite (a DynamoDB emulator) in this test process, in memory, on a free
 * loopback port: the DynamoDB adapter's tests and contract run against it.
 * Child processes reach it through `env()` (RUNLOG_DYNAMODB_ENDPOINT).
 */
export interface InProcessDynalite {
  endpoint: string;
  /** This process's environment pointing runlog at this server (and table). */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

export async function startDynalite(): Promise<InProcessDynalite> {
  const dynalite = createRequire(import.meta.url)("dynalite") as Dynalite;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    env: (extra = {}) => {
      const { RUNLOG_TABLE: _table, ...env } = process.env;
      return { ...env, RUNLOG_DYNAMODB_ENDPOINT: endpoint, ...extra };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
