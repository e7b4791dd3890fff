import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../lib/core/canonicalJson.ts";
import { CorruptEventError, InvalidInputError } from "../../lib/core/errors.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { EVENT_PREVIEW_BYTES, type EventPage, type PageEntry } from "../../lib/ports/eventStore.ts";
import { type ContractStore, message, started } from "./fixtures.ts";

const seqOf = (entry: PageEntry) => ("event" in entry ? entry.event.seq : entry.summary.seq);
const seqs = (page: EventPage) =>
  page.entries.map((entry) => ("event" in entry ? entry.event.seq : `summary ${entry.summary.seq}`));
const jsonBytes = (event: RunEvent) => Buffer.byteLength(canonicalJson(event));

/** readPage: a bounded slice of the log, by count and by stored bytes, big events summarized unread. */
export function pageContract(get: () => ContractStore, id: (label: string) => string): void {
  describe("readPage", () => {
    it("pages by limit: each page continues where the last ended, and says when the log goes on", async () => {
      const { store } = get();
      const runId = id("page-limit");
      await store.createRun(started(runId));
      for (let seq = 2; seq <= 5; seq++) await store.append(runId, message(seq));
      const request = { limit: 2, maxBytes: 1024 * 1024 };
      expect(seqs(await store.readPage(runId, request))).toEqual([1, 2]);
      expect(await store.readPage(runId, request)).toMatchObject({ more: true });
      expect(await store.readPage(runId, { ...request, afterSeq: 2 })).toMatchObject({ more: true });
      const last = await store.readPage(runId, { ...request, afterSeq: 4 });
      expect(last).toEqual({ entries: [{ event: (await store.read(runId, 4))[0] }], more: false });
      expect(await store.readPage(runId, { ...request, afterSeq: 5 })).toEqual({ entries: [], more: false });
      // A limit that ends exactly at the log's end: nothing more.
      expect(await store.readPage(runId, { ...request, afterSeq: 3 })).toMatchObject({ more: false });
      expect(await store.readPage(id("never-created"), request)).toEqual({ entries: [], more: false });
    });

    it("stops before the event whose stored body would pass maxBytes", async () => {
      const { store } = get();
      const runId = id("page-bytes");
      const events: RunEvent[] = [started(runId)];
      // Under 1 KB each: stored as their JSON, so the stored size is exactly known here.
      for (let seq = 2; seq <= 6; seq++) events.push(message(seq, `${seq} ${"y".repeat(400)}`));
      await store.createRun(events[0] as Parameters<typeof store.createRun>[0]);
      for (const event of events.slice(1)) await store.append(runId, event);
      const twoAndThree = jsonBytes(events[1]!) + jsonBytes(events[2]!);
      const page = await store.readPage(runId, { afterSeq: 1, limit: 100, maxBytes: twoAndThree });
      expect(page).toEqual({ entries: [{ event: events[1] }, { event: events[2] }], more: true });
      const short = await store.readPage(runId, { afterSeq: 1, limit: 100, maxBytes: twoAndThree - 1 });
      expect(seqs(short)).toEqual([2]);
    });

    it("lists an event over maxBytes by itself as a summary with its type, size and the start of its JSON", async () => {
      const { store } = get();
      const runId = id("page-summary");
      await store.createRun(started(runId));
      // One that does not compress (a blob of chunks on DynamoDB) and one stored compressed (hex: about half).
      const random = message(2, randomBytes(600 * 1024).toString("base64"));
      const compressed = message(3, randomBytes(300 * 1024).toString("hex"));
      await store.append(runId, random);
      await store.append(runId, compressed);
      await store.append(runId, message(4));
      const page = await store.readPage(runId, { limit: 10, maxBytes: 8 * 1024 });
      expect(seqs(page)).toEqual([1, "summary 2", "summary 3", 4]);
      expect(page.more).toBe(false);
      for (const [entry, event] of [
        [page.entries[1], random],
        [page.entries[2], compressed],
      ] as const) {
        expect(entry).toEqual({
          summary: {
            seq: event.seq,
            type: "user_message",
            at: event.at,
            storedBytes: expect.any(Number),
            preview: canonicalJson(event).slice(0, EVENT_PREVIEW_BYTES),
          },
        });
        const { storedBytes } = (entry as { summary: { storedBytes: number } }).summary;
        expect(storedBytes).toBeGreaterThan(8 * 1024);
        expect(storedBytes).toBeLessThanOrEqual(jsonBytes(event));
      }
      // With room for it, the same event comes whole.
      const roomy = await store.readPage(runId, { afterSeq: 1, limit: 1, maxBytes: 64 * 1024 * 1024 });
      expect(roomy).toEqual({ entries: [{ event: random }], more: true });
    });

    it("pages together list every event once, in order, as read() has them", async () => {
      const { store } = get();
      const runId = id("page-all");
      await store.createRun(started(runId));
      // Every third does not compress and is over maxBytes: listed as a summary. The others fit
      // whole whether the store compresses them or not (SQLite keeps bodies of a few KB as text).
      for (let seq = 2; seq <= 12; seq++) {
        const text = seq % 3 === 0 ? randomBytes(3000).toString("base64") : `${seq} ${"z".repeat(200 * seq)}`;
        await store.append(runId, message(seq, text));
      }
      const whole: RunEvent[] = [];
      const listed: number[] = [];
      let afterSeq = 0;
      for (let more = true; more; ) {
        const page = await store.readPage(runId, { afterSeq, limit: 4, maxBytes: 3000 });
        expect(page.entries.length).toBeGreaterThan(0);
        for (const entry of page.entries) {
          if ("event" in entry) whole.push(entry.event);
          listed.push(seqOf(entry));
        }
        afterSeq = listed.at(-1)!;
        more = page.more;
      }
      expect(listed).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      const all = await store.read(runId);
      expect(whole).toEqual(all.filter((event) => event.seq % 3 !== 0 || event.seq === 1));
    });

    it("refuses a bad request naming the field, and names the seq of a corrupt event, whole or summarized", async () => {
      const s = get();
      const runId = id("page-bad");
      await s.store.createRun(started(runId));
      for (const [request, field] of [
        [{ limit: 0, maxBytes: 10 }, "limit"],
        [{ limit: 1.5, maxBytes: 10 }, "limit"],
        [{ limit: 1, maxBytes: 0 }, "maxBytes"],
        [{ afterSeq: -1, limit: 1, maxBytes: 10 }, "afterSeq"],
        [{ afterSeq: 0.5, limit: 1, maxBytes: 10 }, "afterSeq"],
      ] as const) {
        const error = await s.store.readPage(runId, request).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidInputError);
        expect((error as Error).message).toMatch(new RegExp(`^${field}:`));
      }
      await s.raw.putEventBody(runId, 2, "{not json");
      const error = await s.store.readPage(runId, { limit: 5, maxBytes: 1024 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CorruptEventError);
      expect(error).toMatchObject({ seq: 2 });
      // Summarized (over the page's maxBytes), it is still named, from the start of its body alone.
      await s.raw.putEventBody(runId, 3, `[${"1,".repeat(600)}1]`);
      const summarized = await s.store
        .readPage(runId, { afterSeq: 2, limit: 1, maxBytes: 64 })
        .catch((e: unknown) => e);
      expect(summarized).toBeInstanceOf(CorruptEventError);
      expect(summarized).toMatchObject({ seq: 3, message: expect.stringContaining('it starts "[1,1,') });
    });
  });
}
