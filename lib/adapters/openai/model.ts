import OpenAI from "openai";
import type { Stream } from "openai/core/streaming";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { errorMessage, ModelRejectedError } from "../../core/errors.ts";
import type { Model, ModelReply, ModelRequest } from "../../ports/model.ts";
import { MODEL_CLIENT } from "../../workflow/timeouts.ts";
import { stopOrDeadline } from "../abort.ts";
import { beforeAbort, noTextBeforeDeadline } from "../deadline.ts";
import { ReplyAssembler } from "./assemble.ts";
import { isContextLengthError, toModelError } from "./errors.ts";
import { contextFull, readReply } from "./read.ts";
import { toChatRequest } from "./request.ts";
import { type MaxTokensField, OPENAI_SETTINGS } from "./settings.ts";
import { OPENAI_SPEC_PREFIX } from "./spec.ts";

export interface OpenAIModelOptions {
  /** The provider's model name, e.g. `gpt-4.1-mini` or `llama3.1:8b`. */
  model: string;
  /**
   * The key, or a function the SDK asks for it before each request (a key read from a secret and
   * rotated). @default the `OPENAI_API_KEY` environment variable (read by the SDK)
   */
  apiKey?: string | (() => Promise<string>);
  /**
   * Any OpenAI-compatible endpoint. @default `OPENAI_BASE_URL` (read by the SDK), else
   * https://api.openai.com/v1; runlog's composition roots always give it, from the environment
   * they were given (lib/runtime/config.ts)
   */
  baseURL?: string;
  /** The OpenAI organization sent with each request; null sends none. @default `OPENAI_ORG_ID` (read by the SDK) */
  organization?: string | null;
  /** The OpenAI project sent with each request; null sends none. @default `OPENAI_PROJECT_ID` (read by the SDK) */
  project?: string | null;
  /** Retries the SDK makes itself (429, 408, 409, 5xx, connection errors) before runlog sees a failure. @default 2 (MODEL_CLIENT, lib/workflow/timeouts.ts) */
  maxRetries?: number;
  /** Time allowed per attempt for the response to start, and between two chunks of it. @default 240000 (MODEL_CLIENT) */
  timeoutMs?: number;
  /** A client built elsewhere (Azure, a proxy, custom fetch); `apiKey` and `baseURL` are then not used. */
  client?: OpenAI;
  /**
   * The body field that carries a run's maxOutputTokens: `max_tokens` for servers that do not take
   * `max_completion_tokens` yet. @default "max_completion_tokens"
   */
  maxTokensField?: MaxTokensField;
}

/**
 * The production model: any OpenAI-compatible Chat Completions endpoint, streamed.
 * Its spec is `openai:<model>`. A caller's abort rethrows `signal.reason` (an AbortError
 * unless the caller gave another reason), the way `fetch` does, so it is never mistaken for
 * a provider failure and never retried as one. The request's deadline ends the call too, keeping
 * what streamed so far as an interrupted reply (see ModelRequest.deadline).
 */
export function createOpenAIModel(options: OpenAIModelOptions): Model {
  const spec = `${OPENAI_SPEC_PREFIX}${options.model}`;
  const client = options.client ?? buildClient(spec, options);
  const idleMs = options.timeoutMs ?? client.timeout;
  const perRequest = {
    ...(options.maxRetries !== undefined && { maxRetries: options.maxRetries }),
    ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }),
  };

  async function call(request: ModelRequest): Promise<ModelReply> {
    const { signal, deadline } = request;
    const abort = stopOrDeadline(signal, deadline);
    let stream: Stream<ChatCompletionChunk>;
    let contentType: string | null;
    try {
      const created = client.chat.completions.create(
        toChatRequest(options.model, request, options.maxTokensField),
        {
          ...perRequest,
          ...(abort && { signal: abort }),
        },
      );
      // The response too: what it says it carries tells a broken stream from an endpoint that never streams.
      const { data, response } = await beforeAbort(created.withResponse(), abort);
      stream = data;
      contentType = response.headers.get("content-type");
    } catch (error) {
      signal?.throwIfAborted();
      if (deadline?.aborted) throw noTextBeforeDeadline(spec, error);
      if (isContextLengthError(error)) return contextFull();
      // The key as the client last resolved it (a key given by a function too) is kept out of the message.
      throw toModelError(error, spec, [client.apiKey ?? undefined], client.baseURL);
    }
    const assembler = new ReplyAssembler(spec, (position) => `call_${request.turn}_${position}`);
    return readReply(stream, assembler, {
      spec,
      url: client.baseURL,
      contentType,
      idleMs,
      signal,
      deadline,
      onText: request.onText,
    });
  }

  return { spec, supportedSettings: OPENAI_SETTINGS, call };
}

function buildClient(spec: string, options: OpenAIModelOptions): OpenAI {
  try {
    return new OpenAI({
      ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
      ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
      ...(options.organization !== undefined && { organization: options.organization }),
      ...(options.project !== undefined && { project: options.project }),
      // The limits CallModel's function uses on AWS, so a local call fits its step's time the same way.
      maxRetries: options.maxRetries ?? MODEL_CLIENT.attempts - 1,
      timeout: options.timeoutMs ?? MODEL_CLIENT.perAttemptMs,
    });
  } catch (error) {
    // The SDK refuses to start without a key; local servers accept any non-empty one.
    throw new ModelRejectedError(
      `${spec}: cannot create the client: ${errorMessage(error)} (servers that need no key accept any value)`,
      { cause: error },
    );
  }
}
