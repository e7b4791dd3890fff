import { EventSourceParserStream } from "eventsource-parser/stream";

/** One Server-Sent Event as a client reads it. */
export interface Sse {
  event: string;
  id?: string;
  data: string;
}

/**
 * A reader of a `text/event-stream` response, one event at a time, parsed as a browser's
 * EventSource does (any line ending, fields without a colon, comments); `cancel` is a client going away.
 */
export function readSse(response: Response) {
  if (!response.body) throw new Error("the response has no body to read events from");
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  return {
    /** The next event, or undefined once the stream ended. */
    async next(): Promise<Sse | undefined> {
      const { value, done } = await reader.read();
      if (done) return undefined;
      return {
        event: value.event ?? "message",
        ...(value.id === undefined ? {} : { id: value.id }),
        data: value.data,
      };
    },
    cancel: () => reader.cancel(),
  };
}
