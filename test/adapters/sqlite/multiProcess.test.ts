import { describe, expect, it } from "vitest";
import { SqliteEventStore } from "../../../lib/adapters/sqlite/sqliteEventStore.ts";
import { startWorker, tempStoreFile } from "./helpers.ts";
import { started } from "./support.ts";

describe("two processes on one store file", () => {
  it("racing to append the same seq, exactly one wins each time and the winner's event is stored", async () => {
    const file = tempStoreFile("race");
    const store = new SqliteEventStore({ file });
    await store.createRun(started("r"));
    const workers = { a: startWorker(file, "race", "r", "a"), b: startWorker(file, "race", "r", "b") };
    const both = Object.values(workers);
    await Promise.all(both.map((w) => w.line((line) => line === "ready")));
    const rounds = 40;
    for (let seq = 2; seq <= rounds + 1; seq++) {
      for (const w of both) w.child.stdin.write(`go ${seq}\n`);
      const answered = (line: string) => line.startsWith(`won ${seq}`) || line.startsWith(`lost ${seq} `);
      await Promise.all(both.map((w) => w.line(answered)));
    }
    for (const w of both) w.child.stdin.end();
    for (const { code, stderr } of await Promise.all(both.map((w) => w.exit))) expect(code, stderr).toBe(0);

    const events = await store.read("r");
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: rounds + 1 }, (_, i) => i + 1));
    for (let seq = 2; seq <= rounds + 1; seq++) {
      const winners = Object.entries(workers).filter(([, w]) => w.lines.includes(`won ${seq}`));
      const losers = Object.entries(workers).filter(([, w]) => w.lines.includes(`lost ${seq} ConflictError`));
      expect(
        winners.map(([name]) => name),
        `seq ${seq}`,
      ).toHaveLength(1);
      expect(losers, `seq ${seq}`).toHaveLength(1);
      expect(events[seq - 1]).toMatchObject({ type: "user_message", text: `${winners[0]?.[0]} ${seq}` });
    }
    await store.close();
  });
});
