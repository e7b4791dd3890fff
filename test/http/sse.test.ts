import { describe, expect, it } from "vitest";
import { readSse, type Sse } from "./sse.ts";

/** A response whose body arrives in these pieces (so a line ending may be split across two). */
const streamed = (...pieces: string[]) =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
        controller.close();
      },
    }),
  );

async function all(response: Response): Promise<Sse[]> {
  const reader = readSse(response);
  const events: Sse[] = [];
  for (let event = await reader.next(); event; event = await reader.next()) events.push(event);
  return events;
}

describe("readSse", () => {
  it("reads events ended by CRLF, CR or LF alike, a CRLF split across chunks too", async () => {
    const events = await all(
      streamed("event: a\r\nid: 1\r\ndata: one\r", "\n\r\n", "data: two\r\rdata: three\n\n"),
    );
    expect(events).toEqual([
      { event: "a", id: "1", data: "one" },
      { event: "message", data: "two" },
      { event: "message", data: "three" },
    ]);
  });

  it("reads a field line without a colon as that field, empty, and skips comments", async () => {
    const events = await all(streamed(": keep-alive\n\ndata: a\ndata\ndata:b\nevent:x\n\n"));
    expect(events).toEqual([{ event: "x", data: "a\n\nb" }]);
  });
});
