import type { Observer } from "../ports/runtime.ts";
import { checkLocalOptions } from "../runtime/local/localOptions.ts";
import { localPrincipal } from "../runtime/local/localPrincipal.ts";
import { type LocalRuntimeOptions, openLocalRuntime } from "../runtime/local/localRuntime.ts";
import type { RunlogConfig } from "../runtime/readConfig.ts";
import type { StepObserver } from "../steps/deps.ts";
import { LiveFeed } from "./liveFeed.ts";
import { Runlog } from "./runlog.ts";

/** How openLocal wires this machine's runlog (lib/runtime/local/localRuntime.ts), and who is told of its runs. */
export interface LocalOptions extends Omit<LocalRuntimeOptions, "observer"> {
  observer?: Observer;
}

export interface LocalRunlog {
  runlog: Runlog;
  dataDir: string;
  /** Where the events are stored, in words. */
  where: string;
  /** This process's runs as they happen: events as appended, model text as it streams (createApp's `live`). */
  live: LiveFeed;
  /** Wait for background executions, then disconnect. */
  close(): Promise<void>;
}

/** The Runlog of one machine: the SQLite store in the data dir (or configured DynamoDB), in-process state machine, wired by lib/runtime. */
export async function openLocal(
  options: LocalOptions = {},
  /** The configuration the caller already read (the CLI does, once); read from `options.env` without it. */
  config?: RunlogConfig,
): Promise<LocalRunlog> {
  // Before its observer is read: a caller's `null` is named as such, not a TypeError.
  checkLocalOptions(options);
  const live = new LiveFeed();
  const { deps, dataDir, where, close } = await openLocalRuntime(
    { ...options, observer: alsoTelling(live, options.observer) },
    config,
  );
  return {
    runlog: new Runlog(deps).as(localPrincipal()),
    dataDir,
    where,
    live,
    close: async () => {
      live.close();
      await close();
    },
  };
}

/** The caller's observer, and the live feed told the same (after it, so a progress line comes first). */
function alsoTelling(live: LiveFeed, observer: Observer | undefined): StepObserver {
  if (!observer) return live;
  // The caller's object as prototype: its other hooks (executionEnded, lostRace…) answer as before.
  const both: StepObserver = Object.create(observer);
  both.appended = (runId, event) => {
    observer.appended(runId, event);
    live.appended(runId, event);
  };
  both.streamed = (runId, generation, delta) => {
    observer.streamed?.(runId, generation, delta);
    live.streamed(runId, generation, delta);
  };
  return both;
}
