import type { ToolCall, Usage } from "../core/eventFields.ts";
import type { ChatMessage } from "../core/messages.ts";
import type { ModelSettingName } from "../core/modelSettingNames.ts";
import type { ModelSettings } from "../core/modelSettings.ts";
import type { OutputFormat } from "../core/structuredOutput.ts";
import type { ToolSpec } from "../core/toolSpecs.ts";

/** A tool as the model sees it (made by toolSpec, core/toolSpecs.ts, as the messages are by core). */
export type { ToolSpec };

export interface ModelRequest {
  runId: string;
  /** How many model turns the log already records (responses and failures): 0 for the first call. */
  turn: number;
  instructions: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /**
   * How to call the model (lib/core/modelSettings.ts), as the run recorded them: only settings the
   * model names in `supportedSettings` (the others were refused at start). @default none: the provider's defaults
   */
  settings?: ModelSettings;
  /**
   * Set for an agent with an `output` schema: the JSON its final answer must be. A provider with a
   * structured-output mode should ask the model for it; the answer is checked against the agent's
   * schema either way, and one that does not fit is sent back (lib/core/structuredOutput.ts).
   * @default none: any text
   */
  output?: OutputFormat;
  /** Aborted when the execution is stopped (a cancel): the call throws the signal's reason. */
  signal?: AbortSignal;
  /**
   * Aborted when the step must stop waiting for the model (its time is nearly up): the call ends
   * at once, returning what streamed so far as a reply with stop `interrupted`, or throwing
   * ModelUnavailableError when nothing did, so no output is lost with the step's function.
   */
  deadline?: AbortSignal;
  /**
   * Told each piece of the response's text as it streams in, in order (their concatenation is the
   * reply's text, unless the call fails or is cut off). Only for watching: must not throw.
   */
  onText?(delta: string): void;
}

export interface ModelReply {
  text: string;
  toolCalls: ToolCall[];
  /** One of KNOWN_STOPS, or the provider's own word for an ending runlog does not know. */
  stop: string;
  usage?: Usage;
}

/**
 * A chat model. Throws ModelUnavailableError when trying again may help and
 * ModelRejectedError when it will not; a response cut off after some output (a
 * broken stream, the request's deadline) is a reply with stop `interrupted`, not
 * an error, so its text is kept.
 */
export interface Model {
  readonly spec: string;
  /**
   * The model settings this model honours (ModelRequest.settings): a run that asks for any other is
   * refused at start, naming it. @default none: such a model is called with no settings
   */
  readonly supportedSettings?: readonly ModelSettingName[];
  call(request: ModelRequest): Promise<ModelReply>;
}

/** Builds the model named by a spec such as `scripted:FILE` or `openai:gpt-4.1-mini`. */
export type ModelResolver = (spec: string) => Model;

/**
 * Makes the model a spec names from the part after its prefix: for `echo:one`, the provider
 * added as `echo` is called with `"one"`. Called when a spec is first named (a start, a resume
 * with `--model`), so a provider that cannot work (no key, a bad name) should throw here, before
 * anything is written.
 */
export type ModelFactory = (name: string) => Model;

/** Model providers by spec prefix (without the colon): `{ echo: (name) => model }` serves `echo:…`. */
export type ModelProviders = Readonly<Record<string, ModelFactory>>;
