import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from "@aws-sdk/client-bedrock-runtime";
import { errorMessage, ModelUnavailableError } from "../../core/errors.ts";
import type { Model, ModelReply, ModelRequest } from "../../ports/model.ts";
import { MODEL_CLIENT } from "../../workflow/timeouts.ts";
import { stopOrDeadline } from "../abort.ts";
import { sdkRegion } from "../aws/region.ts";
import { beforeAbort, noTextBeforeDeadline } from "../deadline.ts";
import { ConverseAssembler } from "./assemble.ts";
import { isContextFullError, toBedrockError } from "./errors.ts";
import { toConverseRequest } from "./request.ts";
import { BEDROCK_SETTINGS } from "./settings.ts";
import { BEDROCK_SPEC_PREFIX } from "./spec.ts";

export interface BedrockModelOptions {
  /** A Bedrock model id, inference profile id or ARN, e.g. `amazon.nova-lite-v1:0`. */
  modelId: string;
  /** A client built elsewhere (its own region, credentials, endpoint); the options below are then not used. */
  client?: BedrockRuntimeClient;
  /** @default the SDK's: `AWS_REGION` (an empty one counts as unset), else the profile's region */
  region?: string;
  /** Requests the SDK makes in all (its own retries of throttling, 5xx and connection errors included). @default 3 (MODEL_CLIENT) */
  maxAttempts?: number;
  /** Time allowed per attempt with no data on the stream. @default 240000 (MODEL_CLIENT) */
  timeoutMs?: number;
}

/** The reply to a prompt that does not fit the context window: not an error, an ending. */
const contextFull = (): ModelReply => ({ text: "", toolCalls: [], stop: "context_full" });

/**
 * A model on Amazon Bedrock through the Converse API, streamed (ConverseStream), signed with the
 * SDK's default credential chain. Its spec is `bedrock:<model id>`. Endings, errors, the deadline
 * and a cancel are handled as the OpenAI model handles its own: a caller's abort rethrows
 * `signal.reason`; the deadline keeps what streamed as an interrupted reply; a stream cut off
 * after some text keeps it as an interrupted reply, before any text is ModelUnavailableError.
 */
export function createBedrockModel(options: BedrockModelOptions): Model {
  const spec = `${BEDROCK_SPEC_PREFIX}${options.modelId}`;
  const client = options.client ?? buildClient(options);

  async function call(request: ModelRequest): Promise<ModelReply> {
    const { signal, deadline } = request;
    const abort = stopOrDeadline(signal, deadline);
    let stream: AsyncIterable<ConverseStreamOutput> | undefined;
    try {
      const command = new ConverseStreamCommand(toConverseRequest(options.modelId, request));
      const sent = client.send(command, abort ? { abortSignal: abort } : {});
      // The SDK's backoff between two attempts does not watch the signal: this does.
      stream = (await beforeAbort(sent, abort)).stream;
    } catch (error) {
      signal?.throwIfAborted();
      if (deadline?.aborted) throw noTextBeforeDeadline(spec, error);
      if (isContextFullError(error)) return contextFull();
      throw toBedrockError(error, spec);
    }
    return read(stream, request, abort);
  }

  async function read(
    stream: AsyncIterable<ConverseStreamOutput> | undefined,
    { signal, deadline, onText }: ModelRequest,
    abort: AbortSignal | undefined,
  ): Promise<ModelReply> {
    const assembler = new ConverseAssembler(spec);
    const events = (stream ?? noEvents())[Symbol.asyncIterator]();
    let failure: unknown;
    try {
      for (;;) {
        // The SDK stops watching the signal once the response has started: each wait watches it.
        const next = await beforeAbort(events.next(), abort);
        if (next.done) break;
        const text = assembler.add(next.value);
        if (text.length > 0) onText?.(text);
      }
    } catch (error) {
      // An abort ends the SDK's request too (it was given the signal), so its reading ends with it.
      failure = error;
    }
    signal?.throwIfAborted();
    // A break after messageStop only loses the metadata event: the response itself is whole.
    if (assembler.finished) return assembler.reply();
    if (isContextFullError(failure)) return contextFull();
    if (assembler.partialText.length > 0) return assembler.interrupted();
    if (deadline?.aborted) throw noTextBeforeDeadline(spec, failure);
    // An exception event Bedrock sent (throttling, validation …) is judged like a failed request.
    if (isServiceError(failure)) throw toBedrockError(failure, spec);
    const why = failure === undefined ? "it ended before the model finished" : errorMessage(failure);
    throw new ModelUnavailableError(
      `${spec} is unavailable: the response stream broke before any text: ${why}`,
      {
        cause: failure,
      },
    );
  }

  return { spec, supportedSettings: BEDROCK_SETTINGS, call };
}

async function* noEvents(): AsyncGenerator<ConverseStreamOutput> {}

/** An error the service sent (the SDK marks its modelled exceptions with `$fault`), not a broken connection. */
function isServiceError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "$fault" in error;
}

function buildClient(options: BedrockModelOptions): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: options.region ?? sdkRegion(),
    // The limits CallModel's function uses on AWS, so a local call fits its step's time the same way.
    maxAttempts: options.maxAttempts ?? MODEL_CLIENT.attempts,
    requestHandler: {
      requestTimeout: options.timeoutMs ?? MODEL_CLIENT.perAttemptMs,
      // The SDK's own default for this client: one HTTP/2 session per stream.
      disableConcurrentStreams: true,
    },
  });
}
