import { newHead } from "../../lib/adapters/newHead.ts";
import { ConflictError, LeaseHeldError, NotFoundError } from "../../lib/core/errors.ts";
import type { RunEvent, RunStarted } from "../../lib/core/events.ts";
import { assertSameStart } from "../../lib/core/sameStart.ts";
import type { RunStatus } from "../../lib/core/status.ts";
import type {
  AutoResumes,
  EventPage,
  EventStore,
  Lease,
  ListOptions,
  PageRequest,
  Resting,
  RunHead,
  RunPage,
} from "../../lib/ports/eventStore.ts";

/**
 * The EventStore port in memory, for unit tests of steps: conditional appends and
 * compare-and-set lease claims as the SQLite and DynamoDB stores do them (the contract suite
 * holds those two to the same behaviour), without a file or a server. Events are kept as
 * structured copies, so a test cannot change what is "stored" through an object it still holds.
 * Paging and listing are not needed by the steps under test and are not implemented.
 */
export class MemoryStore implements EventStore {
  readonly logs = new Map<string, RunEvent[]>();
  readonly heads = new Map<string, RunHead>();
  /** The time heads are stamped with. */
  now: () => Date = () => new Date();

  async createRun(first: RunStarted, lease?: Lease): Promise<{ created: boolean }> {
    // A fork's copy is written before its first event: only seq 1 says the run exists.
    const log = this.logs.get(first.runId) ?? [];
    const stored = log.find((event) => event.seq === 1);
    if (stored) {
      assertSameStart(first, stored);
      return { created: false };
    }
    this.logs.set(first.runId, [structuredClone(first), ...log]);
    this.heads.set(first.runId, newHead(first, lease, this.now().toISOString()));
    return { created: true };
  }

  async append(runId: string, event: RunEvent): Promise<void> {
    const log = this.logs.get(runId) ?? [];
    if (log.some((stored) => stored.seq === event.seq)) {
      throw new ConflictError(`append to run ${runId}: seq ${event.seq} is already taken`, {
        runId,
        seq: event.seq,
      });
    }
    log.push(structuredClone(event));
    log.sort((a, b) => a.seq - b.seq);
    this.logs.set(runId, log);
  }

  async read(runId: string, afterSeq = 0): Promise<RunEvent[]> {
    return structuredClone((this.logs.get(runId) ?? []).filter((event) => event.seq > afterSeq));
  }

  /** Whole events only (no summaries): the tests on this store keep their events small. */
  async readPage(runId: string, request: PageRequest): Promise<EventPage> {
    const after = await this.read(runId, request.afterSeq);
    return {
      entries: after.slice(0, request.limit).map((event) => ({ event })),
      more: after.length > request.limit,
    };
  }

  async readBack(runId: string, stop: (event: RunEvent) => boolean): Promise<RunEvent[]> {
    const log = this.logs.get(runId) ?? [];
    let from = log.length - 1;
    while (from > 0 && !stop(log[from]!)) from--;
    return structuredClone(log.slice(Math.max(0, from)));
  }

  async getHead(runId: string): Promise<RunHead | undefined> {
    const head = this.heads.get(runId);
    if (!head) return undefined;
    const lastSeq = Math.max(head.lastSeq, this.logs.get(runId)?.at(-1)?.seq ?? 0);
    return structuredClone({ ...head, lastSeq });
  }

  async setStatus(runId: string, status: RunStatus, lastSeq: number, agent?: string): Promise<void> {
    const head = this.head(runId);
    this.heads.set(runId, {
      ...head,
      agent: agent ?? head.agent,
      status,
      lastSeq: Math.max(head.lastSeq, lastSeq),
      updatedAt: this.stamp(),
    });
  }

  async claimLease(
    runId: string,
    lease: Lease,
    expectVersion: number,
    autoResumes?: AutoResumes,
  ): Promise<void> {
    const head = this.head(runId);
    if (head.lease?.owner === lease.owner && head.lease.until === lease.until) return;
    if (head.leaseVersion !== expectVersion) {
      throw new LeaseHeldError(
        `run ${runId}: expected lease version ${expectVersion} but it is ${head.leaseVersion}`,
        { runId },
      );
    }
    this.heads.set(runId, {
      ...head,
      lease: { ...lease },
      status: "running",
      leaseVersion: expectVersion + 1,
      updatedAt: this.stamp(),
      ...(autoResumes === undefined ? {} : { autoResumes: { ...autoResumes } }),
    });
  }

  async renewLease(runId: string, lease: Lease): Promise<boolean> {
    const head = this.heads.get(runId);
    if (head?.lease?.owner !== lease.owner) return false;
    this.heads.set(runId, { ...head, lease: { ...lease }, updatedAt: this.stamp() });
    return true;
  }

  async releaseLease(runId: string, owner: string, { status, lastSeq, agent }: Resting): Promise<boolean> {
    const head = this.heads.get(runId);
    if (head?.lease?.owner !== owner) return false;
    const { lease: _, ...rest } = head;
    // As the stores: a head a writer without the lease moved on (a cancel) keeps what it says.
    const movedOn = head.status === "cancelled" || (lastSeq !== undefined && head.lastSeq > lastSeq);
    this.heads.set(runId, {
      ...rest,
      ...(movedOn ? {} : { agent: agent ?? head.agent, status, lastSeq: lastSeq ?? head.lastSeq }),
      updatedAt: this.stamp(),
    });
    return true;
  }

  async listRuns(_options?: ListOptions): Promise<RunPage> {
    throw new Error("MemoryStore.listRuns is not implemented");
  }

  async countRunning(_ownerScope: string, _atMost: number): Promise<number> {
    throw new Error("MemoryStore.countRunning is not implemented");
  }

  /** Expiry is recorded (`expiries`), not acted on: a test reads what was asked. */
  readonly expiries = new Map<string, Date | null>();

  async expire(runId: string, at: Date | null): Promise<void> {
    if (this.heads.has(runId)) this.expiries.set(runId, at);
  }

  private head(runId: string): RunHead {
    const head = this.heads.get(runId);
    if (!head) throw new NotFoundError(`run ${runId} does not exist`, { runId });
    return head;
  }

  private stamp(): string {
    return this.now().toISOString();
  }
}
