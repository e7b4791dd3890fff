import { describe, expect, it } from "vitest";
import type { ListOptions, RunHead } from "../../lib/ports/eventStore.ts";
import { type ContractStore, listPages, started } from "./fixtures.ts";

/** Distinct updatedAt between writes, so the listing order is defined. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** The fork half of the contract: a fork's head names its parent, and a run's forks are listed. */
export function forkContract(get: () => ContractStore, id: (label: string) => string): void {
  async function fork(parent: string, label: string, seq = 1): Promise<string> {
    const runId = id(label);
    await get().store.createRun({ ...started(runId), parent: { runId: parent, seq } });
    await tick();
    return runId;
  }

  const all = (options: ListOptions): Promise<RunHead[][]> => listPages(get().store, options);

  describe("forks", () => {
    it("lists a run's own forks and no other run, newest first, a page at a time, each naming where it was forked", async () => {
      const { store } = get();
      const parent = id("fork-parent");
      await store.createRun(started(parent));
      const forks: string[] = [];
      for (let i = 0; i < 5; i++) forks.push(await fork(parent, `fork-child-${i}`, i + 1));
      const grandchild = await fork(forks[0]!, "fork-grandchild");
      await store.createRun(started(id("fork-unrelated")));
      // A status change moves a fork to the front: the order is by last update.
      await store.setStatus(forks[1]!, "completed", 1);

      const pages = await all({ parent });
      expect(pages.every((page) => page.length <= 2)).toBe(true);
      const listed = pages.flat();
      expect(listed.map((head) => head.runId)).toEqual([forks[1], forks[4], forks[3], forks[2], forks[0]]);
      expect(listed.find((head) => head.runId === forks[3])?.parent).toEqual({ runId: parent, seq: 4 });
      expect((await store.getHead(forks[2]!))?.parent).toEqual({ runId: parent, seq: 3 });
      expect((await store.getHead(parent))?.parent).toBeUndefined();
      expect((await all({ parent: forks[0]! })).flat().map((head) => head.runId)).toEqual([grandchild]);
      expect((await all({ parent: grandchild })).flat()).toEqual([]);
    });

    it("lists a run's forks in one status", async () => {
      const { store } = get();
      const parent = id("fork-status-parent");
      await store.createRun(started(parent));
      const forks: string[] = [];
      for (let i = 0; i < 4; i++) forks.push(await fork(parent, `fork-status-${i}`));
      for (const runId of [forks[0]!, forks[2]!]) {
        await store.setStatus(runId, "failed", 1);
        await tick();
      }
      const failed = (await all({ parent, status: "failed" })).flat();
      expect(failed.map((head) => head.runId)).toEqual([forks[2], forks[0]]);
      expect((await all({ parent, status: "completed" })).flat()).toEqual([]);
    });

    it("keeps the parent on a head rebuilt from the log, and lists that fork again", async () => {
      const s = get();
      const parent = id("fork-repair-parent");
      await s.store.createRun(started(parent));
      const child = await fork(parent, "fork-repair-child", 1);
      await s.raw.deleteHead(child);
      expect((await all({ parent })).flat()).toEqual([]);
      expect((await s.store.getHead(child))?.parent).toEqual({ runId: parent, seq: 1 });
      expect((await all({ parent })).flat().map((head) => head.runId)).toEqual([child]);
    });

    it("leaves out a fork whose expiry has passed", async () => {
      const { store } = get();
      const parent = id("fork-expiry-parent");
      await store.createRun(started(parent));
      const gone = await fork(parent, "fork-expired");
      const kept = await fork(parent, "fork-kept");
      await store.expire(gone, new Date(Date.now() - 1_000));
      expect((await all({ parent })).flat().map((head) => head.runId)).toEqual([kept]);
    });
  });
}
