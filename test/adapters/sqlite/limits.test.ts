import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../../lib/core/errors.ts";
import { MAX_EVENT_BYTES } from "../../../lib/ports/eventStore.ts";
import { storeWithRawFile } from "./helpers.ts";
import { message, started } from "./support.ts";

const { store, raw } = storeWithRawFile("limits");

const rows = (runId: string) =>
  Number(raw.prepare("SELECT count(*) AS n FROM events WHERE run_id = ?").get(runId)?.n);

describe("an event over MAX_EVENT_BYTES", () => {
  it("is refused as invalid input naming the run and seq, and nothing is stored", async () => {
    await store.createRun(started("big"));
    const error = await store.append("big", message(2, "x".repeat(MAX_EVENT_BYTES))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/run big: the user_message event at seq 2 is \d+ bytes/);
    expect(rows("big")).toBe(1);
    // The seq stays free for an event that fits.
    await store.append("big", message(2, "fits"));
    expect(rows("big")).toBe(2);
    expect((await store.read("big", 1))[0]).toMatchObject({ seq: 2, text: "fits" });
  });

  it("as the first event leaves no run behind", async () => {
    await expect(store.createRun(started("big-first", "y".repeat(MAX_EVENT_BYTES)))).rejects.toBeInstanceOf(
      InvalidInputError,
    );
    expect(rows("big-first")).toBe(0);
    expect(await store.getHead("big-first")).toBeUndefined();
  });
});
