import { describe, expect, it } from "vitest";
import { decodeEvent } from "../../lib/core/decodeEvent.ts";
import { EVENT_TYPES } from "../../lib/core/eventConstants.ts";
import { EventSchema } from "../../lib/core/events.ts";
import { decodeStoredEvent } from "../../lib/core/storedEvents.ts";

describe("EVENT_TYPES", () => {
  it("names every type of the event union, in its order, and nothing else", () => {
    expect(EVENT_TYPES).toEqual(EventSchema.options.map((schema) => schema.shape.type.value));
  });

  it("is what a store's decoder accepts: every union type, and no other", () => {
    const envelope = { v: 1, seq: 1, at: "2026-12-06T00:00:00.000Z" };
    for (const type of EVENT_TYPES) expect(decodeStoredEvent({ ...envelope, type }).ok).toBe(true);
    expect(decodeStoredEvent({ ...envelope, type: "tool_finished" })).toEqual({
      ok: false,
      problem: 'type: unknown event type "tool_finished"',
    });
  });

  it("leaves the field checks to decodeEvent, which names the field", () => {
    const decoded = decodeEvent({ v: 1, seq: 1, at: "2026-12-06T00:00:00.000Z", type: "user_message" });
    expect(decoded.ok).toBe(false);
  });
});
