/** One Server-Sent Event as a client reads it. */
export interface Sse {
  event: string;
  id?: string;
  data: string;
}

/** A reader of a `text/event-stream` response, one event at a time; `cancel` is a client going away. */
export function readSse(response: Response) {
  if (!response.body) throw new Error("the response has no body to read events from");
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  return {
    /** The next event, or undefined once the stream ended. */
    async next(): Promise<Sse | undefined> {
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          return parse(block);
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    cancel: () => reader.cancel(),
  };
}

function parse(block: string): Sse {
  const sse: Sse = { event: "message", data: "" };
  const data: string[] = [];
  for (const line of block.split("\n")) {
    const colon = line.indexOf(":");
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") sse.event = value;
    else if (field === "id") sse.id = value;
    else if (field === "data") data.push(value);
  }
  sse.data = data.join("\n");
  return sse;
}
