import { DynamoEventStore } from "../../../lib/adapters/dynamodb/dynamoEventStore.ts";
import type { Runlog } from "../../../lib/api/runlog.ts";
import { LeaseHeldError, NotFoundError, RunlogError } from "../../../lib/core/errors.ts";
import type { RunEvent } from "../../../lib/core/events.ts";
import { startDynalite } from "../../support/dynalite.ts";
import { connectDynamo } from "../../support/store.ts";
import { type FaultProxy, startFaultProxy } from "./faultProxy.ts";
import { harness } from "./harness.ts";

/** The client gives up on a request after this long; the proxy holds `late`/`slow-answer` ones longer. */
const REQUEST_TIMEOUT_MS = 400;
const HOLD_MS = 700;
const LEASE_MS = 2_000;

export interface FaultyRunlog {
  proxy: FaultProxy;
  /** The library API, every store request of which goes through the proxy. */
  runlog: Runlog;
  /** The same table read directly, past the proxy: the truth to check against. */
  truth: DynamoEventStore;
  /** Every event the library was told it appended, by `runId#seq`. */
  acknowledged: Map<string, RunEvent>;
  close(): Promise<void>;
}

/** dynalite in this process, a fault proxy in front of it, and a runlog (agents in `dataDir`) that talks through the proxy. */
export async function faultyRunlog(dataDir: string): Promise<FaultyRunlog> {
  const server = await startDynalite();
  const endpoint = server.endpoint;
  const proxy = await startFaultProxy(endpoint, HOLD_MS);
  const env = { RUNLOG_DYNAMODB_ENDPOINT: proxy.url, RUNLOG_TABLE: "faults" };
  const faulty = await connectDynamo({ env, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  const direct = await connectDynamo({ env: { ...env, RUNLOG_DYNAMODB_ENDPOINT: endpoint } });
  const acknowledged = new Map<string, RunEvent>();
  const store = new DynamoEventStore({ client: faulty.client, tableName: faulty.tableName });
  // A short lease: a resume whose claim landed but whose answer was lost (and whose give-back failed
  // too) strands its lease, which then lapses, as the design says, rather than after 30 s.
  const { runlog } = harness(store, dataDir, {
    leaseMs: LEASE_MS,
    observer: { appended: (runId, event) => acknowledged.set(`${runId}#${event.seq}`, event) },
  });
  return {
    proxy,
    runlog,
    truth: new DynamoEventStore({ client: direct.client, tableName: direct.tableName }),
    acknowledged,
    close: async () => {
      faulty.client.destroy();
      direct.client.destroy();
      await proxy.close();
      await server.stop();
    },
  };
}

/** How a run got to the end under faults: the errors the library threw on the way (all runlog errors). */
export interface FaultyDrive {
  errors: RunlogError[];
  rounds: number;
}

/**
 * Start a run and resume or approve it until it completes, through faults:
 * any call may fail, but only with a runlog error (never a crash or a raw SDK error).
 */
export async function driveThroughFaults(
  runlog: Runlog,
  start: Parameters<Runlog["start"]>[0] & { runId: string },
  maxRounds = 40,
): Promise<FaultyDrive> {
  const drive: FaultyDrive = { errors: [], rounds: 0 };
  const attempt = async (call: () => Promise<unknown>) => {
    try {
      await call();
    } catch (error) {
      if (!(error instanceof RunlogError)) throw error;
      drive.errors.push(error);
    }
  };
  await attempt(() => runlog.start(start));
  for (; drive.rounds < maxRounds; drive.rounds++) {
    let point: Awaited<ReturnType<Runlog["resumePoint"]>> | undefined;
    await attempt(async () => {
      point = await runlog.resumePoint(start.runId);
    });
    // A start whose first write never landed left no run: start again, as a caller would.
    if (!point && drive.errors.at(-1) instanceof NotFoundError) await attempt(() => runlog.start(start));
    if (!point) continue;
    if (!point.resumable && point.reason === "completed") return drive;
    if (!point.resumable && point.reason === "awaiting_approval") {
      for (const call of point.waitingToolCalls ?? []) {
        await attempt(() => runlog.approve(start.runId, call.id, { by: "faults" }));
      }
    } else if (point.resumable || point.reason === "running") {
      await attempt(() => runlog.resume({ runId: start.runId }));
      // Refused because a lease is held: give it the time to lapse that a person would.
      if (drive.errors.at(-1) instanceof LeaseHeldError)
        await new Promise((r) => setTimeout(r, LEASE_MS / 4));
    } else throw new Error(`run ${start.runId} cannot go on: ${point.reason} (${point.description})`);
  }
  const last = drive.errors.slice(-3).map((error) => `${error.name}: ${error.message}`);
  throw new Error(
    `run ${start.runId} did not complete in ${maxRounds} rounds; last errors:\n${last.join("\n")}`,
  );
}
