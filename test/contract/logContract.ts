import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ConflictError, CorruptEventError, IdTakenError, InvalidInputError } from "../../lib/core/errors.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { type ContractStore, message, race, started } from "./fixtures.ts";

const texts = (events: RunEvent[]) => events.map((e) => (e.type === "user_message" ? e.text : e.type));

/** The log half of the contract: creating runs, appending, reading, and refusing what is corrupt. */
export function logContract(get: () => ContractStore, id: (label: string) => string): void {
  describe("createRun", () => {
    it("writes seq 1 and a running head holding the lease", async () => {
      const { store } = get();
      const runId = id("create");
      const first = started(runId);
      const lease = { owner: "worker-1", until: Date.now() + 60_000 };
      expect(await store.createRun(first, lease)).toEqual({ created: true });
      expect(await store.read(runId)).toEqual([first]);
      expect(await store.getHead(runId)).toMatchObject({
        runId,
        agent: "demo",
        status: "running",
        lastSeq: 1,
        createdAt: first.at,
        leaseVersion: 1,
        lease,
      });
    });

    it("without a lease leaves the run unleased at version 0", async () => {
      const { store } = get();
      const runId = id("create-unleased");
      await store.createRun(started(runId));
      const head = await store.getHead(runId);
      expect(head).toMatchObject({ status: "interrupted", leaseVersion: 0, lastSeq: 1 });
      expect(head?.lease).toBeUndefined();
    });

    it("is idempotent for the same first event and refuses a different run under the same id", async () => {
      const { store } = get();
      const runId = id("create-twice");
      const first = started(runId, "the input");
      await store.createRun(first);
      expect(await store.createRun(started(runId, "the input"))).toEqual({ created: false });
      const clash = store.createRun(started(runId, "another input"));
      await expect(clash).rejects.toBeInstanceOf(ConflictError);
      await expect(clash).rejects.toThrow(runId);
      expect(await store.read(runId)).toEqual([first]);
    });

    it("repeated after a crash between its two writes, still leaves a head", async () => {
      const s = get();
      const runId = id("create-headless");
      await s.store.createRun(started(runId));
      await s.raw.deleteHead(runId);
      expect(await s.store.createRun(started(runId))).toEqual({ created: false });
      expect(await s.raw.head(runId)).toMatchObject({ agent: "demo", lastSeq: 1 });
    });
  });

  describe("append", () => {
    it("lets exactly one of 20 concurrent writers of one seq win, and stores the winner's event", async () => {
      const { store } = get();
      const runId = id("race");
      await store.createRun(started(runId));
      const candidates = Array.from({ length: 20 }, (_, i) => message(2, `writer ${i}`));
      const { won, lost } = await race(candidates.map((event) => () => store.append(runId, event)));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      for (const error of lost) {
        expect(error).toBeInstanceOf(ConflictError);
        expect((error as Error).message).toContain(runId);
        expect((error as Error).message).toContain("seq 2");
      }
      expect(await store.read(runId, 1)).toEqual([candidates[won[0]!]]);
    });

    it("never overwrites, and a late lower seq does not move the head back", async () => {
      const { store } = get();
      const runId = id("no-overwrite");
      await store.createRun(started(runId));
      await store.append(runId, message(3, "three"));
      await store.append(runId, message(2, "two"));
      const clash = store.append(runId, message(3, "impostor"));
      await expect(clash).rejects.toBeInstanceOf(ConflictError);
      // The facts as fields, for a caller to act on without reading the message.
      await expect(clash).rejects.toMatchObject({ code: "conflict", runId, seq: 3 });
      expect(texts(await store.read(runId))).toEqual(["run_started", "two", "three"]);
      expect((await store.getHead(runId))?.lastSeq).toBe(3);
    });

    it("rejects a seq below 1 as invalid input and writes nothing", async () => {
      const { store } = get();
      const runId = id("bad-seq");
      await store.createRun(started(runId));
      await expect(store.append(runId, { ...message(2), seq: 0 })).rejects.toBeInstanceOf(InvalidInputError);
      expect(await store.read(runId)).toHaveLength(1);
    });
  });

  describe("read", () => {
    it("returns the events after afterSeq in order, and nothing for an unknown run", async () => {
      const { store } = get();
      const runId = id("read");
      await store.createRun(started(runId));
      for (let seq = 2; seq <= 5; seq++) await store.append(runId, message(seq));
      expect((await store.read(runId)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect((await store.read(runId, 3)).map((e) => e.seq)).toEqual([4, 5]);
      expect(await store.read(runId, 5)).toEqual([]);
      expect(await store.read(id("never-created"))).toEqual([]);
    });

    it("follows pages past 1 MB and returns every event in order", async () => {
      const { store } = get();
      const runId = id("big");
      await store.createRun(started(runId));
      const filler = "x".repeat(5_000);
      for (let from = 2; from <= 301; from += 25) {
        const batch = Array.from({ length: 25 }, (_, i) => message(from + i, `${from + i} ${filler}`));
        await Promise.all(batch.map((event) => store.append(runId, event)));
      }
      const events = await store.read(runId);
      expect(events).toHaveLength(301);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 301 }, (_, i) => i + 1));
      expect(texts(events)[300]).toBe(`301 ${filler}`);
    });
  });

  describe("readBack", () => {
    it("reads from the newest back to the first event `stop` accepts, and returns them oldest first", async () => {
      const { store } = get();
      const runId = id("read-back");
      await store.createRun(started(runId));
      for (let seq = 2; seq <= 40; seq++) await store.append(runId, message(seq));
      const seen: number[] = [];
      const tail = await store.readBack(runId, (event) => {
        seen.push(event.seq);
        return event.seq === 37;
      });
      expect(tail.map((e) => e.seq)).toEqual([37, 38, 39, 40]);
      expect(seen).toEqual([40, 39, 38, 37]);
      expect((await store.readBack(runId, () => false)).map((e) => e.seq)).toEqual(
        Array.from({ length: 40 }, (_, i) => i + 1),
      );
      expect(await store.readBack(id("never-created-back"), () => true)).toEqual([]);
    });
  });

  describe("corrupt items", () => {
    it.each([
      ["invalid JSON", "{not json", /not valid JSON/],
      ["an unknown schema version", JSON.stringify({ ...message(2), v: 99 }), /schema version 99/],
      ["a body for another seq", JSON.stringify(message(7)), /seq 7/],
      ["an unknown event type", JSON.stringify({ ...message(2), type: "model_thought" }), /model_thought/],
    ])(
      "fail read with CorruptEventError naming the seq for %s, and are never overwritten",
      async (name, body, detail) => {
        const s = get();
        const runId = id(`corrupt-${name.replace(/\W+/g, "-")}`);
        await s.store.createRun(started(runId));
        await s.raw.putEventBody(runId, 2, body);
        await s.store.append(runId, message(3));
        const error = await s.store.read(runId).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(CorruptEventError);
        expect(error).toMatchObject({ code: "corrupt_event", runId, seq: 2 });
        expect((error as Error).message).toMatch(detail);
        expect((await s.store.read(runId, 2)).map((e) => e.seq)).toEqual([3]);
        await expect(s.store.append(runId, message(2, "repair attempt"))).rejects.toBeInstanceOf(
          ConflictError,
        );
        expect(await s.raw.eventBody(runId, 2)).toBe(body);
      },
    );
  });

  describe("expire", () => {
    it("sets the TTL on every item, hides a run whose time has passed, and null brings it back", async () => {
      const s = get();
      const runId = id("expire");
      await s.store.createRun(started(runId));
      await s.store.append(runId, message(2));
      const future = new Date(Date.now() + 86_400_000);
      await s.store.expire(runId, future);
      expect(await s.raw.expiresAt(runId)).toBe(Math.ceil(future.getTime() / 1000));
      expect(await s.store.read(runId)).toHaveLength(2);

      await s.store.expire(runId, new Date(Date.now() - 1000));
      expect(await s.store.read(runId)).toEqual([]);
      expect(await s.store.getHead(runId)).toBeUndefined();
      expect((await s.store.listRuns({ limit: 1000 })).runs.map((r) => r.runId)).not.toContain(runId);

      await s.store.expire(runId, null);
      expect(await s.raw.expiresAt(runId)).toBeUndefined();
      expect(texts(await s.store.read(runId))).toEqual(["run_started", "message 2"]);
    });
  });

  describe("a run removed by retention", () => {
    /**
     * A run with several events and a payload too big for one record, whose expiry has passed: more
     * items than the DynamoDB store's first look for leftovers reads (8), so the rest are paged on.
     */
    async function expiredRun(label: string, payload: string) {
      const { store } = get();
      const runId = id(label);
      await store.createRun(started(runId, "the old run", new Date(Date.now() - 60_000)));
      await store.append(runId, message(2, "old two"));
      await store.append(runId, message(3, payload));
      for (let seq = 4; seq <= 12; seq++) await store.append(runId, message(seq, `old ${seq}`));
      await store.expire(runId, new Date(Date.now() - 1000));
      return runId;
    }

    it("can be created again under its id, and the new run meets nothing of the old one", async () => {
      const { store } = get();
      const payload = randomBytes(200 * 1024).toString("base64");
      const runId = await expiredRun("recreate", payload);
      expect(await store.getHead(runId)).toBeUndefined();

      const first = started(runId, "the new run");
      expect(await store.createRun(first, { owner: "new-owner", until: Date.now() + 60_000 })).toEqual({
        created: true,
      });
      expect(await store.read(runId)).toEqual([first]);
      expect(await store.getHead(runId)).toMatchObject({
        status: "running",
        lastSeq: 1,
        leaseVersion: 1,
        lease: { owner: "new-owner" },
      });
      // The old run's seqs are free, its payload included (the same bytes again, at another seq).
      await store.append(runId, message(2, "new two"));
      await store.append(runId, message(3, "new three"));
      await store.append(runId, message(4, payload));
      expect(texts(await store.read(runId))).toEqual(["run_started", "new two", "new three", payload]);
      expect(texts(await store.readBack(runId, () => false))).toEqual([
        "run_started",
        "new two",
        "new three",
        payload,
      ]);
      expect((await store.getHead(runId))?.lastSeq).toBe(4);
      await store.append(runId, message(5, "new five"));
      // Nothing of the old run comes back when the new one's retention changes.
      await store.expire(runId, null);
      await store.expire(runId, new Date(Date.now() + 86_400_000));
      expect(texts(await store.read(runId, 3))).toEqual([payload, "new five"]);
      expect((await store.getHead(runId))?.lastSeq).toBe(5);
      await expect(store.append(runId, message(5, "a second writer"))).rejects.toBeInstanceOf(ConflictError);
    });

    it("created again, is one run however many creators race for the id", async () => {
      const { store } = get();
      const runId = await expiredRun("recreate-race", "small");
      const first = started(runId, "the new run");
      const { won, lost } = await race(Array.from({ length: 5 }, () => () => store.createRun(first)));
      expect(won).toHaveLength(5);
      expect(lost).toEqual([]);
      expect(await store.read(runId)).toEqual([first]);
      const writers = Array.from({ length: 5 }, (_, i) => message(2, `writer ${i}`));
      const appended = await race(writers.map((event) => () => store.append(runId, event)));
      expect(appended.won).toHaveLength(1);
      expect(texts(await store.read(runId))).toEqual(["run_started", `writer ${appended.won[0]}`]);
    });

    it("is refused as before while its expiry is still ahead, and a live run's id is too", async () => {
      const { store } = get();
      const runId = id("recreate-early");
      await store.createRun(started(runId, "kept a while"));
      await store.append(runId, message(2));
      await store.expire(runId, new Date(Date.now() + 86_400_000));
      await expect(store.createRun(started(runId, "another run"))).rejects.toBeInstanceOf(IdTakenError);
      await expect(store.createRun(started(runId, "another run"))).rejects.toMatchObject({
        code: "id_taken",
        id: runId,
        runId,
        differences: [expect.stringContaining("input")],
      });
      await store.expire(runId, null);
      await expect(store.createRun(started(runId, "another run"))).rejects.toBeInstanceOf(IdTakenError);
      expect(await store.createRun(started(runId, "kept a while"))).toEqual({ created: false });
      expect(texts(await store.read(runId))).toEqual(["run_started", "message 2"]);
    });
  });

  describe("big events", () => {
    it("a 4 MB message round-trips intact, every stored record within the storage's limit", async () => {
      const s = get();
      const runId = id("four-mb");
      await s.store.createRun(started(runId));
      // Half text that compresses, half that does not: both paths of the store.
      const text = `${"the quick brown fox ".repeat(100_000)}${randomBytes(1536 * 1024).toString("base64")}`;
      await s.store.append(runId, message(2, text));
      await s.store.append(runId, message(3));
      expect(texts(await s.store.read(runId))).toEqual(["run_started", text, "message 3"]);
      expect(texts(await s.store.read(runId, 1))[0]).toBe(text);
      expect(texts(await s.store.readBack(runId, (e) => e.seq === 2))).toEqual([text, "message 3"]);
      if (!s.raw.recordSizes) return; // SQLite: no record limit, one row holds the compressed body
      const { limit, sizes } = await s.raw.recordSizes(runId);
      // Head, three events, and the big payload split into several chunks (plus its manifest).
      expect(sizes.length).toBeGreaterThan(6);
      for (const size of sizes) expect(size).toBeLessThan(limit);
    });
  });
}
