import { describe, expect, it } from "vitest";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { startWorker, tempStoreFile } from "./helpers.ts";
import { message, started } from "./support.ts";

const seqs = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("acknowledged events", () => {
  it("are all there when the database is opened again", async () => {
    const file = tempStoreFile("reopen");
    const first = new SqliteEventStore({ file });
    await first.createRun(started("r"));
    for (let seq = 2; seq <= 100; seq++)
      await first.append("r", message(seq, `#${seq} ${"x".repeat(seq * 30)}`));
    const written = await first.read("r");
    await first.close();
    const again = new SqliteEventStore({ file });
    expect(await again.read("r")).toEqual(written);
    expect(written.map((e) => e.seq)).toEqual(seqs(100));
    expect((await again.getHead("r"))?.lastSeq).toBe(100);
    await again.close();
  });

  it("survive the writing process being killed mid-run (SIGKILL), with no gap after them", async () => {
    const file = tempStoreFile("kill");
    const worker = startWorker(file, "append", "r", "100000");
    await worker.line((line) => line === "acked 200");
    worker.child.kill("SIGKILL");
    const { signal } = await worker.exit;
    expect(signal).toBe("SIGKILL");
    const acked = worker.lines.filter((l) => l.startsWith("acked ")).map((l) => Number(l.slice(6)));
    expect(acked.length).toBeGreaterThanOrEqual(200);

    const store = new SqliteEventStore({ file });
    const stored = (await store.read("r")).map((e) => e.seq);
    // Every acknowledged seq is there; at most the one in flight when killed is there besides.
    expect(stored.length).toBeGreaterThanOrEqual(acked.length);
    expect(stored.length).toBeLessThanOrEqual(acked.length + 1);
    expect(stored).toEqual(seqs(stored.length));
    await store.close();
  });
});
