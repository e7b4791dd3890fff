import { localPrincipal } from "../runtime/local/localPrincipal.ts";
import { type LocalReadOptions, openLocalReadDeps } from "../runtime/local/localReadDeps.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import { RunReads } from "./runReads.ts";

export interface LocalReads {
  /** The reads of openLocal's Runlog, as the local user: its own runs only, as openLocal's. */
  reads: RunReads;
  dataDir: string;
  /** Where the events are stored, in words. */
  where: string;
  close(): Promise<void>;
}

/**
 * This machine's runs opened to be read, not run: the store openLocal would open and what
 * reading it takes (lib/runtime/local/localReadDeps.ts), without the runtime that executes runs.
 * What the CLI's read commands use, so `runlog ls` loads no state machine or model adapter.
 */
export async function openLocalReads(options: LocalReadOptions, config: RunlogConfig): Promise<LocalReads> {
  const { deps, dataDir, where, close } = await openLocalReadDeps(options, config);
  return { reads: new RunReads(deps, localPrincipal()), dataDir, where, close };
}
