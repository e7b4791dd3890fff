import { describe, expect, it } from "vitest";
import { ownerScope } from "../../lib/core/principal.ts";
import type { ListOptions } from "../../lib/ports/eventStore.ts";
import { type ContractStore, listPages, started } from "./fixtures.ts";

/** Distinct updatedAt between writes, so the listing order is defined. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** The owner half of the contract: a run's head names its owner; an owner's runs are listed and counted. */
export function ownerContract(get: () => ContractStore, id: (label: string) => string): void {
  const lease = () => ({ owner: "executor", until: Date.now() + 60_000 });

  async function own(
    label: string,
    owner: { id: string; tenant?: string },
    running = false,
  ): Promise<string> {
    const runId = id(label);
    await get().store.createRun({ ...started(runId), owner }, running ? lease() : undefined);
    await tick();
    return runId;
  }

  const all = async (options: ListOptions): Promise<string[]> =>
    (await listPages(get().store, options)).flat().map((head) => head.runId);

  describe("owners", () => {
    it("lists an owner's runs only, newest first, a page at a time; a tenant's runs share one scope", async () => {
      const { store } = get();
      const zoe = { id: id("zoe") };
      const mine = [await own("own-a", zoe), await own("own-b", zoe), await own("own-c", zoe)];
      await own("own-other", { id: id("yan") });
      const t1 = await own("own-t1", { id: id("xia"), tenant: id("acme") });
      const t2 = await own("own-t2", { id: id("wen"), tenant: id("acme") });
      expect(await all({ owner: ownerScope(zoe) })).toEqual([...mine].reverse());
      expect(await all({ owner: `tenant:${id("acme")}` })).toEqual([t2, t1]);
      expect((await store.getHead(t1))?.owner).toEqual({ id: id("xia"), tenant: id("acme") });
      expect(await all({ owner: ownerScope({ id: id("nobody") }) })).toEqual([]);
      // With a status, and with a parent: only that owner's.
      await store.setStatus(mine[0]!, "completed", 1);
      expect(await all({ owner: ownerScope(zoe), status: "completed" })).toEqual([mine[0]]);
      await store.createRun({ ...started(id("own-fork")), parent: { runId: mine[1]!, seq: 1 }, owner: zoe });
      await store.createRun({
        ...started(id("own-fork-x")),
        parent: { runId: mine[1]!, seq: 1 },
        owner: { id: id("yan") },
      });
      expect(await all({ owner: ownerScope(zoe), parent: mine[1]! })).toEqual([id("own-fork")]);
    });

    it("counts an owner's running runs up to the bound asked", async () => {
      const { store } = get();
      const vic = { id: id("vic") };
      for (let i = 0; i < 3; i++) await own(`count-run-${i}`, vic, true);
      await own("count-rest", vic, false);
      await own("count-other", { id: id("uma") }, true);
      expect(await store.countRunning(ownerScope(vic), 10)).toBe(3);
      expect(await store.countRunning(ownerScope(vic), 2)).toBe(2);
      await store.setStatus(id("count-run-0"), "completed", 1);
      expect(await store.countRunning(ownerScope(vic), 10)).toBe(2);
      expect(await store.countRunning(ownerScope({ id: id("nobody") }), 10)).toBe(0);
    });

    it("keeps the owner on a head rebuilt from the log", async () => {
      const s = get();
      const owner = { id: id("tess"), tenant: id("globex") };
      const runId = await own("own-repair", owner);
      await s.raw.deleteHead(runId);
      expect((await s.store.getHead(runId))?.owner).toEqual(owner);
      expect(await all({ owner: ownerScope(owner) })).toEqual([runId]);
    });
  });
}
