import { InvalidInputError, ModelRejectedError, ModelUnavailableError } from "../../core/errors.ts";
import type { ToolCall } from "../../core/eventFields.ts";
import { MODEL_SETTING_NAMES } from "../../core/modelSettingNames.ts";
import type { Model, ModelReply, ModelRequest } from "../../ports/model.ts";
import { stopOrDeadline } from "../abort.ts";
import { DEMO_SCRIPT } from "./demo.ts";
import type { Script, ScriptTurn } from "./script.ts";
import { loadScript } from "./script.ts";

/** The prefix of model specs this adapter serves: `scripted:demo` or `scripted:<FILE>`. */
export const SCRIPTED_SPEC_PREFIX = "scripted:";

/**
 * An offline model that plays a script: the answer to turn N is the script's
 * turn N, whatever the messages say. A crashed and resumed run asks for the
 * same turn again and gets the same answer, with the same call ids.
 */
export class ScriptedModel implements Model {
  /** A script plays the same turns whatever the settings: it accepts every one, and the run records them. */
  readonly supportedSettings = MODEL_SETTING_NAMES;

  constructor(
    readonly spec: string,
    private readonly script: Script,
  ) {}

  /**
   * Play turn `request.turn` (0-based), after its `delayMs` unless the signal (which rethrows its
   * reason) or the deadline (ModelUnavailableError) comes first.
   */
  async call(request: ModelRequest): Promise<ModelReply> {
    const { turns } = this.script;
    const index = request.turn;
    if (!Number.isInteger(index) || index < 0) {
      throw new ModelRejectedError(`${this.spec}: ${index} is not a turn number`);
    }
    const turn = turns[index];
    if (!turn) {
      throw new ModelRejectedError(
        `${this.spec}: the script has ${turns.length} turns and turn ${index + 1} was requested`,
      );
    }
    // A stop and the step's deadline both end the wait. A stop rethrows its reason, as fetch and the
    // other models do; at the deadline no text has streamed, so the model is unavailable.
    const signal = stopOrDeadline(request.signal, request.deadline);
    try {
      await wait(turn.delayMs ?? 0, signal, `${this.spec}: turn ${index + 1}`);
    } catch (error) {
      request.signal?.throwIfAborted();
      throw error;
    }
    const reply = play(turn, index, `${this.spec}: turn ${index + 1}`);
    // Streamed as a provider would, so a live view of an offline run shows text arriving.
    for (const piece of textPieces(reply.text)) request.onText?.(piece);
    return reply;
  }
}

/** The deterministic id of a scripted call: unique within a run because turns only grow. */
export const scriptedCallId = (turn: number, index: number): string => `call_${turn}_${index}`;

function play(turn: ScriptTurn, index: number, where: string): ModelReply {
  switch (turn.error) {
    case "connection":
      throw new ModelUnavailableError(`${where}: the connection dropped (scripted)`);
    case "rate_limit":
      throw new ModelUnavailableError(`${where}: 429 Too Many Requests: rate limited (scripted)`);
    case "rejected":
      throw new ModelRejectedError(`${where}: 400 Bad Request: the request was rejected (scripted)`);
    case undefined:
      break;
  }
  const toolCalls: ToolCall[] = (turn.toolCalls ?? []).map((call, i) => ({
    id: scriptedCallId(index, i),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
  const stop = turn.stop ?? (toolCalls.length > 0 ? "tool_calls" : "stop");
  const reply: ModelReply = { text: turn.text ?? "", toolCalls, stop };
  if (turn.usage) reply.usage = turn.usage;
  return reply;
}

/** Pieces a scripted text streams in: at most TEXT_PIECES runs of whole words, whose concatenation is the text. */
export function textPieces(text: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const size = Math.ceil(words.length / TEXT_PIECES);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += size) pieces.push(words.slice(i, i + size).join(""));
  return pieces;
}

const TEXT_PIECES = 4;

/** Resolve after `ms`, or reject with a retryable error as soon as the signal aborts (a timeout, a stop). */
function wait(ms: number, signal: AbortSignal | undefined, where: string): Promise<void> {
  const aborted = () =>
    new ModelUnavailableError(`${where}: the call was aborted before the model answered`, {
      cause: signal?.reason,
    });
  if (signal?.aborted) return Promise.reject(aborted());
  if (ms === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Build the model a `scripted:demo` or `scripted:<FILE>` spec names, reading the file once, now. */
export function createScriptedModel(spec: string): Model {
  if (!spec.startsWith(SCRIPTED_SPEC_PREFIX)) {
    throw new InvalidInputError(
      `model spec ${JSON.stringify(spec)}: expected scripted:demo or scripted:<FILE>`,
    );
  }
  const source = spec.slice(SCRIPTED_SPEC_PREFIX.length);
  if (source.trim().length === 0) {
    throw new InvalidInputError(
      `model spec ${JSON.stringify(spec)}: name a script file after scripted: (or use scripted:demo)`,
    );
  }
  return new ScriptedModel(spec, source === "demo" ? DEMO_SCRIPT : loadScript(source));
}
