import { readFileSync } from "node:fs";
import { z } from "zod";
import { errorMessage, InvalidInputError } from "../../core/errors.ts";
import { UsageSchema } from "../../core/events.ts";

/** How a scripted turn fails: a dropped connection, a 429, or a request the provider refuses. */
export const SCRIPTED_ERRORS = ["connection", "rate_limit", "rejected"] as const;

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

/** The JSON shape of a script file: the model's answers, one per turn, in order. */
export const ScriptSchema = z.strictObject({ turns: z.array(ScriptTurnSchema).min(1) });
export type Script = z.infer<typeof ScriptSchema>;
export type ScriptTurn = Script["turns"][number];

/** Validate an already parsed script, naming `source` and the offending path when it does not fit. */
export function parseScript(raw: unknown, source: string): Script {
  const parsed = ScriptSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join(".") : "(root)";
    return `${where}: ${issue.message.replace(/^Invalid input: /, "")}`;
  });
  const more = parsed.error.issues.length - problems.length;
  const rest = more > 0 ? ` (and ${more} more)` : "";
  throw new InvalidInputError(`scripted model: script ${source} is invalid: ${problems.join("; ")}${rest}`);
}

/** Read and validate a script file; InvalidInputError naming the file when it is missing, not JSON or the wrong shape. */
export function loadScript(path: string): Script {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new InvalidInputError(`scripted model: cannot read script ${path}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`scripted model: script ${path} is not valid JSON: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return parseScript(raw, path);
}
