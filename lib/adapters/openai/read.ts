import { APIError } from "openai";
import type { Stream } from "openai/core/streaming";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { errorMessage, ModelRejectedError, ModelUnavailableError } from "../../core/errors.ts";
import type { ModelReply } from "../../ports/model.ts";
import { noTextBeforeDeadline } from "../deadline.ts";
import type { ReplyAssembler } from "./assemble.ts";
import { at, isContextLengthError, toModelError } from "./errors.ts";

/** The reply to a prompt that does not fit the context window: not an error, an ending. */
export const contextFull = (): ModelReply => ({ text: "", toolCalls: [], stop: "context_full" });

export interface ReadOptions {
  spec: string;
  /** The endpoint the request went to, named in a failure. */
  url?: string | undefined;
  /** The response's content type: a stream is `text/event-stream`. */
  contentType?: string | null | undefined;
  /** Longest wait for the next chunk; the SDK's own timeout stops once the response has started. */
  idleMs: number;
  signal?: AbortSignal | undefined;
  /** When the step must stop waiting: the stream is cut off and what it carried kept. */
  deadline?: AbortSignal | undefined;
  /** Told each piece of text as it arrives (ModelRequest.onText). */
  onText?: ((delta: string) => void) | undefined;
}

/**
 * Read a streamed response into a reply. A stream that breaks after some text
 * (dropped connection, premature close, stall, an error event) gives a reply with
 * stop `interrupted` that keeps the text; one that breaks before any text throws
 * ModelUnavailableError. A response that is no stream at all (a server that ignores
 * `stream: true` and answers JSON, a proxy's HTML page) carries no chunk and is refused
 * as ModelRejectedError: asking again gets the same answer. A caller's abort rethrows
 * the signal's reason; the deadline cuts the stream off like a break.
 */
export async function readReply(
  stream: Stream<ChatCompletionChunk>,
  assembler: ReplyAssembler,
  { spec, url, contentType, idleMs, signal, deadline, onText }: ReadOptions,
): Promise<ModelReply> {
  let failure: unknown;
  let chunks = 0;
  let stalled = false;
  let timer: NodeJS.Timeout | undefined;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      // The SDK ends the iteration quietly on its own abort; `stalled` says why.
      stream.controller.abort();
    }, idleMs);
    timer.unref();
  };
  // The deadline is in the signal the request was sent with (model.ts): its abort ends the
  // iteration as a stall's does, and `deadline` only says why it ended.
  try {
    watch();
    for await (const chunk of stream) {
      watch();
      chunks += 1;
      const text = assembler.add(chunk);
      if (text.length > 0) onText?.(text);
    }
  } catch (error) {
    failure = error;
  } finally {
    clearTimeout(timer);
  }

  signal?.throwIfAborted();
  // A break after the finish reason only loses the usage chunk: the response itself is whole.
  if (assembler.finished) return assembler.reply();
  if (isContextLengthError(failure)) return contextFull();
  if (assembler.partialText.length > 0) return assembler.interrupted();
  if (deadline?.aborted) throw noTextBeforeDeadline(spec, failure);
  if (failure instanceof APIError) throw toModelError(failure, spec, [], url);
  // Judged only when nothing came: a server that streams under another content type still works.
  if (chunks === 0 && failure === undefined && !stalled && !isEventStream(contentType)) {
    const answered = contentType ? `content-type ${contentType}` : "no content-type";
    throw new ModelRejectedError(
      `${spec} cannot be used${at(url)}: the endpoint answered with ${answered}, not an event stream (text/event-stream): runlog streams every call (stream: true), so the endpoint must stream Chat Completions`,
    );
  }
  const why = stalled
    ? `no data for ${idleMs} ms`
    : failure === undefined
      ? "it ended before the model finished"
      : errorMessage(failure);
  const message = `${spec} is unavailable${at(url)}: the response stream broke before any text: ${why}`;
  throw new ModelUnavailableError(message, { cause: failure });
}

function isEventStream(contentType: string | null | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "text/event-stream";
}
