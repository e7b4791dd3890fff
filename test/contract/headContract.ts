import { describe, expect, it } from "vitest";
import { InvalidInputError, LeaseHeldError, RunlogError } from "../../lib/core/errors.ts";
import type { RunHead } from "../../lib/ports/eventStore.ts";
import { type ContractStore, message, race, started } from "./fixtures.ts";

const lease = (owner: string) => ({ owner, until: Date.now() + 60_000 });

/** The head half of the contract: repair from the log, status, leases and listing. */
export function headContract(get: () => ContractStore, id: (label: string) => string): void {
  async function runWithEvents(label: string, lastSeq: number, holder?: string) {
    const runId = id(label);
    const first = started(runId);
    await get().store.createRun(first, holder ? lease(holder) : undefined);
    for (let seq = 2; seq <= lastSeq; seq++) await get().store.append(runId, message(seq));
    return { runId, first };
  }

  describe("getHead", () => {
    it("is undefined for an unknown run", async () => {
      expect(await get().store.getHead(id("nobody"))).toBeUndefined();
    });

    it("rebuilds a missing head from the log and stores it", async () => {
      const s = get();
      const { runId, first } = await runWithEvents("head-missing", 3, "gone");
      await s.raw.deleteHead(runId);
      const head = await s.store.getHead(runId);
      expect(head).toMatchObject({
        runId,
        agent: "demo",
        lastSeq: 3,
        createdAt: first.at,
        status: "interrupted",
      });
      expect(head?.lease).toBeUndefined();
      expect(head?.leaseVersion).toBe(0);
      expect(await s.raw.head(runId)).toMatchObject({ lastSeq: 3, status: "interrupted" });
    });

    it("rebuilds no head for events without seq 1 (a fork's copy, written before its run_started): no run", async () => {
      const s = get();
      const runId = id("head-no-first");
      for (let seq = 2; seq <= 4; seq++) await s.store.append(runId, message(seq));
      expect(await s.store.getHead(runId)).toBeUndefined();
      expect(await s.raw.head(runId)).toBeUndefined();
      // The fork's run_started then creates the run, with its own head.
      expect((await s.store.createRun(started(runId))).created).toBe(true);
      expect(await s.store.getHead(runId)).toMatchObject({ agent: "demo", lastSeq: 4 });
    });

    it("reports a lagging head at the log's last seq, keeping its status and lease, without writing", async () => {
      const s = get();
      const { runId } = await runWithEvents("head-lagging", 4, "holder");
      await s.raw.setLastSeq(runId, 2);
      const head = await s.store.getHead(runId);
      expect(head).toMatchObject({
        lastSeq: 4,
        status: "running",
        leaseVersion: 1,
        lease: { owner: "holder" },
      });
      // Appends leave the head alone, so a lagging head is normal: reading it writes nothing.
      expect((await s.raw.head(runId))?.lastSeq).toBe(2);
    });

    it("is not written by appends; releasing the lease records the last seq", async () => {
      const s = get();
      const { runId } = await runWithEvents("head-release", 3, "holder");
      expect((await s.raw.head(runId))?.lastSeq).toBe(1);
      await s.store.releaseLease(runId, "holder", { status: "completed", lastSeq: 3 });
      expect(await s.raw.head(runId)).toMatchObject({ lastSeq: 3, status: "completed" });
      expect((await s.store.getHead(runId))?.lease).toBeUndefined();
    });
  });

  describe("status", () => {
    it("setStatus records it; lastSeq moves forward, never back", async () => {
      const s = get();
      const { runId } = await runWithEvents("status", 4, "holder");
      await s.store.setStatus(runId, "failed", 4);
      expect(await s.store.getHead(runId)).toMatchObject({ status: "failed", lastSeq: 4 });
      await s.raw.setLastSeq(runId, 1);
      await s.store.setStatus(runId, "interrupted", 4);
      expect(await s.raw.head(runId)).toMatchObject({ status: "interrupted", lastSeq: 4 });
      await s.store.setStatus(runId, "completed", 2);
      expect(await s.raw.head(runId)).toMatchObject({ status: "completed", lastSeq: 4 });
      expect((await s.store.getHead(runId))?.lease?.owner).toBe("holder");
    });

    it("records the agent in charge when given (a transfer), and keeps it when not", async () => {
      const { store } = get();
      const { runId } = await runWithEvents("agent-in-charge", 3, "holder");
      expect(
        await store.releaseLease(runId, "holder", { status: "interrupted", lastSeq: 3, agent: "billing" }),
      ).toBe(true);
      expect(await store.getHead(runId)).toMatchObject({ agent: "billing", status: "interrupted" });
      await store.setStatus(runId, "failed", 3);
      expect(await store.getHead(runId)).toMatchObject({ agent: "billing", status: "failed" });
      await store.setStatus(runId, "completed", 3, "refunds");
      const listed = (await store.listRuns({ status: "completed", limit: 1000 })).runs;
      expect(listed.find((run) => run.runId === runId)).toMatchObject({ agent: "refunds" });
      // Not the holder: nothing is written, the agent included.
      await store.claimLease(runId, lease("next"), 1);
      expect(
        await store.releaseLease(runId, "intruder", { status: "completed", lastSeq: 3, agent: "triage" }),
      ).toBe(false);
      expect((await store.getHead(runId))?.agent).toBe("refunds");
    });
  });

  describe("leases", () => {
    it("lets exactly one of concurrent claimers at the same version win", async () => {
      const { store } = get();
      const { runId } = await runWithEvents("claim-race", 1);
      const owners = Array.from({ length: 10 }, (_, i) => `claimer-${i}`);
      const { won, lost } = await race(owners.map((owner) => () => store.claimLease(runId, lease(owner), 0)));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(9);
      for (const error of lost) {
        expect(error).toBeInstanceOf(LeaseHeldError);
        expect(error).toMatchObject({ code: "lease_held", runId });
      }
      const head = await store.getHead(runId);
      expect(head).toMatchObject({ status: "running", leaseVersion: 1, lease: { owner: owners[won[0]!] } });
      await expect(store.claimLease(runId, lease("late"), 0)).rejects.toThrow(/version/);
      await store.claimLease(runId, lease("next"), 1);
      expect(await store.getHead(runId)).toMatchObject({ leaseVersion: 2, lease: { owner: "next" } });
    });

    it("refuses a claim on an unknown run without creating a head", async () => {
      const s = get();
      const runId = id("claim-unknown");
      await expect(s.store.claimLease(runId, lease("x"), 0)).rejects.toBeInstanceOf(RunlogError);
      expect(await s.raw.head(runId)).toBeUndefined();
    });

    it("renews and releases only for the holder", async () => {
      const { store } = get();
      const { runId } = await runWithEvents("renew", 1, "holder");
      const before = (await store.getHead(runId))?.lease;
      expect(await store.renewLease(runId, { owner: "intruder", until: Date.now() + 999_999 })).toBe(false);
      await store.releaseLease(runId, "intruder", { status: "completed" });
      expect(await store.getHead(runId)).toMatchObject({ status: "running", lease: before });
      const renewed = { owner: "holder", until: Date.now() + 120_000 };
      expect(await store.renewLease(runId, renewed)).toBe(true);
      expect((await store.getHead(runId))?.lease).toEqual(renewed);
      await store.releaseLease(runId, "holder", { status: "completed" });
      const head = await store.getHead(runId);
      expect(head).toMatchObject({ status: "completed", leaseVersion: 1 });
      expect(head?.lease).toBeUndefined();
      expect(await store.renewLease(runId, renewed)).toBe(false);
    });
  });

  describe("releaseLease", () => {
    it("is true for the holder; false, writing nothing, for another owner and for a second release", async () => {
      const s = get();
      const { runId } = await runWithEvents("release-exact", 3, "holder");
      const before = await s.store.getHead(runId);
      expect(await s.store.releaseLease(runId, "intruder", { status: "failed", lastSeq: 3 })).toBe(false);
      expect(await s.store.getHead(runId)).toEqual(before);
      expect(await s.raw.head(runId)).toMatchObject({ status: "running", lastSeq: 1 });

      expect(await s.store.releaseLease(runId, "holder", { status: "completed", lastSeq: 3 })).toBe(true);
      const released = await s.store.getHead(runId);
      expect(released).toMatchObject({ status: "completed", lastSeq: 3 });
      expect(released?.lease).toBeUndefined();

      expect(await s.store.releaseLease(runId, "holder", { status: "failed", lastSeq: 2 })).toBe(false);
      expect(await s.store.getHead(runId)).toEqual(released);
      expect(await s.raw.head(runId)).toMatchObject({ status: "completed", lastSeq: 3 });
    });

    it("keeps what a cancel recorded while the lease was held: the holder's older status and seq do not overwrite it", async () => {
      const s = get();
      const { runId } = await runWithEvents("release-after-cancel", 5, "holder");
      // The holder read the log at seq 4 and found the run paused; a cancel wrote seq 5 meanwhile.
      await s.store.setStatus(runId, "cancelled", 5);
      expect(
        await s.store.releaseLease(runId, "holder", { status: "paused", lastSeq: 4, agent: "other" }),
      ).toBe(true);
      const head = await s.store.getHead(runId);
      expect(head).toMatchObject({ status: "cancelled", lastSeq: 5 });
      expect(head?.agent).not.toBe("other");
      expect(head?.lease).toBeUndefined();
      expect(await s.store.releaseLease(runId, "holder", { status: "paused", lastSeq: 5 })).toBe(false);
      expect(await s.raw.head(runId)).toMatchObject({ status: "cancelled", lastSeq: 5 });
      const paused = (await s.store.listRuns({ status: "paused", limit: 1000 })).runs;
      expect(paused.map((run) => run.runId)).not.toContain(runId);
    });

    it("is false for a run that does not exist, and creates no head", async () => {
      const s = get();
      const runId = id("release-unknown");
      expect(await s.store.releaseLease(runId, "holder", { status: "completed" })).toBe(false);
      expect(await s.raw.head(runId)).toBeUndefined();
    });
  });

  describe("autoResumes", () => {
    it("is absent on a new run, written with a claim, and kept by claims without it, statuses and releases", async () => {
      const { store } = get();
      const { runId } = await runWithEvents("auto-resumes", 2);
      expect((await store.getHead(runId))?.autoResumes).toBeUndefined();

      const record = { count: 2, lastAt: Date.now() };
      await store.claimLease(runId, lease("sweeper-1"), 0, record);
      expect(await store.getHead(runId)).toMatchObject({ leaseVersion: 1, autoResumes: record });

      await store.setStatus(runId, "interrupted", 2);
      expect(await store.releaseLease(runId, "sweeper-1", { status: "interrupted", lastSeq: 2 })).toBe(true);
      await store.claimLease(runId, lease("user"), 1);
      expect((await store.getHead(runId))?.autoResumes).toEqual(record);

      // A new message starts the count again: a record with no lastAt drops the old one's.
      await store.claimLease(runId, lease("user-2"), 2, { count: 0 });
      expect((await store.getHead(runId))?.autoResumes).toEqual({ count: 0 });
      const listed = (await store.listRuns({ limit: 1000, status: "running" })).runs;
      expect(listed.find((head) => head.runId === runId)?.autoResumes).toEqual({ count: 0 });
    });

    it("is not written by a claim that loses", async () => {
      const { store } = get();
      const { runId } = await runWithEvents("auto-resumes-lost", 1, "holder");
      await expect(store.claimLease(runId, lease("late"), 0, { count: 5, lastAt: 1 })).rejects.toBeInstanceOf(
        LeaseHeldError,
      );
      expect((await store.getHead(runId))?.autoResumes).toBeUndefined();
    });
  });

  describe("listRuns", () => {
    async function all(status?: RunHead["status"]) {
      const pages: RunHead[][] = [];
      let cursor: string | undefined;
      do {
        const page = await get().store.listRuns({
          limit: 2,
          ...(cursor ? { cursor } : {}),
          ...(status ? { status } : {}),
        });
        pages.push(page.runs);
        cursor = page.cursor;
      } while (cursor);
      return pages;
    }

    it("pages through every run once, newest first across pages, and filters by status newest first", async () => {
      const { store } = get();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push((await runWithEvents(`list-${i}`, 1)).runId);
      const refused = [ids[1]!, ids[4]!, ids[6]!];
      for (const runId of refused) {
        await store.setStatus(runId, "refused", 1);
        await new Promise((resolve) => setTimeout(resolve, 5)); // distinct updatedAt, so the order is defined
      }

      const pages = await all();
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(2);
      const listed = pages.flat().map((head) => head.runId);
      expect(new Set(listed).size).toBe(listed.length);
      expect(listed).toEqual(expect.arrayContaining(ids));
      // The order holds across pages, not only within each: updatedAt, then run id, both descending.
      const order = pages.flat().map((head) => `${head.updatedAt} ${head.runId}`);
      expect(order).toEqual([...order].sort().reverse());

      const filtered = (await all("refused")).flat();
      expect(filtered.every((head) => head.status === "refused")).toBe(true);
      const mine = filtered.map((head) => head.runId).filter((runId) => ids.includes(runId));
      expect(mine).toEqual([...refused].reverse());
      const times = filtered.map((head) => head.updatedAt);
      expect(times).toEqual([...times].sort().reverse());
    });

    it("lists the runs in any of several statuses, newest first across pages; no status at all is invalid", async () => {
      const { store } = get();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await runWithEvents(`list-any-${i}`, 1)).runId);
      for (const [runId, status] of [
        [ids[0]!, "failed"],
        [ids[2]!, "cancelled"],
        [ids[3]!, "failed"],
      ] as const) {
        await store.setStatus(runId, status, 1);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const pages: RunHead[][] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listRuns({
          status: ["failed", "cancelled"],
          limit: 2,
          ...(cursor ? { cursor } : {}),
        });
        pages.push(page.runs);
        cursor = page.cursor;
      } while (cursor);
      const listed = pages.flat();
      expect(listed.every((head) => head.status === "failed" || head.status === "cancelled")).toBe(true);
      expect(listed.map((head) => head.runId).filter((runId) => ids.includes(runId))).toEqual([
        ids[3],
        ids[2],
        ids[0],
      ]);
      await expect(store.listRuns({ status: [] })).rejects.toBeInstanceOf(InvalidInputError);
    });

    it("lists oldest first across pages, bounded by updatedAtMost in the query, the shards unseen", async () => {
      const { store } = get();
      const ids: string[] = [];
      for (let i = 0; i < 9; i++) ids.push((await runWithEvents(`list-oldest-${i}`, 1)).runId);
      const times: string[] = [];
      for (const runId of ids) {
        await store.setStatus(runId, "unknown_stop", 1);
        times.push((await store.getHead(runId))!.updatedAt);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const bound = times[5]!;
      const pages: RunHead[][] = [];
      let cursor: string | undefined;
      do {
        const page = await store.listRuns({
          status: "unknown_stop",
          order: "oldestFirst",
          updatedAtMost: bound,
          limit: 2,
          ...(cursor ? { cursor } : {}),
        });
        for (const head of page.runs) expect(head.updatedAt <= bound).toBe(true);
        pages.push(page.runs);
        cursor = page.cursor;
      } while (cursor);
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(2);
      const listed = pages.flat();
      const order = listed.map((head) => `${head.updatedAt} ${head.runId}`);
      expect(order).toEqual([...order].sort());
      expect(new Set(order).size).toBe(order.length);
      expect(listed.map((head) => head.runId).filter((runId) => ids.includes(runId))).toEqual(
        ids.slice(0, 6),
      );

      // Newest first under the same bound: the same heads, the other way round.
      const newest = (await store.listRuns({ status: "unknown_stop", updatedAtMost: bound, limit: 1000 }))
        .runs;
      expect(newest.map((head) => head.runId).filter((runId) => ids.includes(runId))).toEqual(
        ids.slice(0, 6).reverse(),
      );
    });

    it("refuses a cursor of one order for the other", async () => {
      const { store } = get();
      for (let i = 0; i < 3; i++) await runWithEvents(`list-order-${i}`, 1);
      const page = await store.listRuns({ limit: 1, order: "oldestFirst" });
      expect(page.cursor).toBeDefined();
      await expect(store.listRuns({ cursor: page.cursor! })).rejects.toBeInstanceOf(InvalidInputError);
      const newest = await store.listRuns({ limit: 1 });
      await expect(store.listRuns({ cursor: newest.cursor!, order: "oldestFirst" })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
    });

    it.each([
      ["not base64url JSON", "not-a-cursor"],
      ["JSON that is no position", Buffer.from(JSON.stringify({ a: 1 })).toString("base64url")],
      ["an empty object", Buffer.from("{}").toString("base64url")],
      ["a JSON array", Buffer.from("[1,2]").toString("base64url")],
      [
        "a position whose time is no time (it would start the listing somewhere else)",
        Buffer.from(JSON.stringify({ u: "zzzz", r: "some-run" })).toString("base64url"),
      ],
    ])("rejects a cursor it did not issue (%s) as invalid input naming the cursor", async (_, cursor) => {
      const error = await get()
        .store.listRuns({ cursor })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error).toMatchObject({ field: "cursor" });
      expect((error as Error).message).toContain(JSON.stringify(cursor.slice(0, 40)).slice(0, -1));
    });
  });
}
