import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import * as z from "zod";
import { errorMessage, InvalidInputError } from "../../core/errors.ts";
import { type Usage, UsageSchema } from "../../core/eventFields.ts";
import type { RunScript } from "../../core/replay.ts";
import { jsonErrorAt } from "./jsonPosition.ts";
import { isPlainScript } from "./plainScript.ts";

/** How a scripted turn fails: a dropped connection, a 429, or a request the provider refuses. */
export const SCRIPTED_ERRORS = ["connection", "rate_limit", "rejected"] as const;
/** One of {@link SCRIPTED_ERRORS}. */
export type ScriptedError = (typeof SCRIPTED_ERRORS)[number];

/** One tool call a scripted turn asks for. An object is sent as JSON; a string is sent verbatim. */
export interface ScriptToolCall {
  /** The tool's name, as the agent declares it. */
  name: string;
  /** The call's arguments: an object, or a string sent as it is (which may be invalid JSON). */
  arguments: Record<string, unknown> | string;
}

/** One answer of the scripted model: text, tool calls and a stop reason, or an error instead. */
export interface ScriptTurn {
  /** The answer's text. */
  text?: string | undefined;
  /** The tool calls the answer asks for. */
  toolCalls?: ScriptToolCall[] | undefined;
  /**
   * How the answer ends, as runlog records it (not a provider's own words): `stop`, `tool_calls`,
   * `max_output`, `interrupted`, `refusal`, `context_full` (docs/reference/models.md); any other
   * ends the run as `unknown_stop`. @default `tool_calls` with calls, else `stop`
   */
  stop?: string | undefined;
  /** Fail this turn the way a provider does, instead of answering. */
  error?: ScriptedError | undefined;
  /** Wait this long before answering, to stand in for a slow model. */
  delayMs?: number | undefined;
  /** The tokens the turn reports it used. */
  usage?: Usage | undefined;
}

/** The JSON shape of a script file: the model's answers, one per turn, in order. */
export interface Script {
  /** At least one turn. */
  turns: ScriptTurn[];
}

const ScriptToolCallSchema = z.strictObject({
  name: z.string().min(1),
  /** An object is sent as JSON; a string is sent verbatim, so a script can send invalid JSON. */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()], {
    error: "expected an object or a string",
  }),
});

const ScriptTurnSchema = z
  .strictObject({
    text: z.string().optional(),
    toolCalls: z.array(ScriptToolCallSchema).min(1).optional(),
    stop: z.string().min(1).optional(),
    error: z.enum(SCRIPTED_ERRORS).optional(),
    delayMs: z.number().int().min(0).optional(),
    usage: UsageSchema.optional(),
  })
  .refine((turn) => (turn.error ?? turn.text ?? turn.toolCalls ?? turn.stop) !== undefined, {
    message: "a turn needs text, toolCalls, stop or error",
  })
  .refine((turn) => turn.error === undefined || (turn.text ?? turn.toolCalls ?? turn.stop) === undefined, {
    message: "a turn with an error has no text, toolCalls or stop",
  });

const ScriptFileSchema = z.strictObject({ turns: z.array(ScriptTurnSchema).min(1) });
/**
 * Validates a script file. Declared with the named {@link Script} type, so the published
 * declarations name it instead of spelling out the schema's inferred type.
 */
export const ScriptSchema: z.ZodType<Script> = ScriptFileSchema;

// The declared types and the schema must describe one shape: the annotation above checks one
// direction only (a field the schema drops or adds would still pass), so this fails to compile
// whenever the two differ at all.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type MustHold<T extends true> = T;
export type ScriptShapeCheck = MustHold<Same<z.output<typeof ScriptFileSchema>, Script>>;
/** A run exported as a script (lib/core/replay.ts) is a script this model plays. */
export type RunScriptCheck = MustHold<RunScript extends Script ? true : false>;

/** Validate an already parsed script, naming `source` and the offending path when it does not fit. */
export function parseScript(raw: unknown, source: string): Script {
  // Taken as it is: the schema's output for such a script is the same data.
  if (isPlainScript(raw)) return raw as Script;
  const parsed = ScriptSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    // An unknown key's message quotes the key: a word of the file, which errors never show.
    const message = issue.code === "unrecognized_keys" ? "unknown key" : issue.message;
    return `${where}: ${message.replace(/^Invalid input: /, "")}`;
  });
  const more = parsed.error.issues.length - problems.length;
  const rest = more > 0 ? ` (and ${more} more)` : "";
  throw new InvalidInputError(`scripted model: script ${source} is invalid: ${problems.join("; ")}${rest}`);
}

/** The largest script file read: a script is a test's few turns, not a data set. */
export const MAX_SCRIPT_BYTES = 8 * 1024 * 1024;

const cannotRead = (path: string, problem: string, cause?: unknown) =>
  new InvalidInputError(`scripted model: cannot read script ${path}: ${problem}`, { cause });

/**
 * The file's text, if it is a regular file of at most MAX_SCRIPT_BYTES. Opened without blocking
 * (a FIFO answers at once instead of waiting for a writer) and checked on the open descriptor, so
 * what is checked is what is read; the read stops one byte past the cap.
 */
function readBounded(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw cannotRead(path, (error as NodeJS.ErrnoException).code ?? errorMessage(error), error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw cannotRead(path, "not a regular file");
    if (stats.size > MAX_SCRIPT_BYTES) throw cannotRead(path, `larger than ${MAX_SCRIPT_BYTES} bytes`);
    // Sized by the stat, grown (up to one byte past the cap) only if the file grew since.
    let buffer = Buffer.alloc(Math.min(stats.size, MAX_SCRIPT_BYTES) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > MAX_SCRIPT_BYTES) throw cannotRead(path, `larger than ${MAX_SCRIPT_BYTES} bytes`);
        const grown = Buffer.alloc(Math.min(buffer.length * 2, MAX_SCRIPT_BYTES + 1));
        buffer.copy(grown);
        buffer = grown;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return buffer.subarray(0, length).toString("utf8");
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Read and validate a script file; InvalidInputError naming the file when it is missing, not a
 * regular file, larger than MAX_SCRIPT_BYTES, not JSON or the wrong shape. Errors name the file and
 * where in it, never what it holds: the file may be one the caller could not read itself.
 */
export function loadScript(path: string): Script {
  const text = readBounded(path);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    const where = jsonErrorAt(text);
    const at = where === undefined ? "" : ` at line ${where.line}, column ${where.column}`;
    throw new InvalidInputError(`scripted model: script ${path} is not valid JSON${at}`);
  }
  return parseScript(raw, path);
}
