type Plain = Record<string, unknown>;

/** An object as JSON.parse makes one: not null, not an array, of no class. */
function isPlain(value: unknown): value is Plain {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `{ name, arguments }` and nothing else: a non-empty name, arguments an object or a string. */
function isPlainCall(call: unknown): boolean {
  if (!isPlain(call)) return false;
  let keys = 0;
  for (const key in call) {
    if (key !== "name" && key !== "arguments") return false;
    keys++;
  }
  const { name, arguments: args } = call;
  return (
    keys === 2 && typeof name === "string" && name.length > 0 && (typeof args === "string" || isPlain(args))
  );
}

/** A turn of text, tool calls and a stop only (at least one of them), each of the schema's type. */
function isPlainTurn(turn: unknown): boolean {
  if (!isPlain(turn)) return false;
  let keys = 0;
  for (const key in turn) {
    const value = turn[key];
    if (key === "text") {
      if (typeof value !== "string") return false;
    } else if (key === "stop") {
      if (typeof value !== "string" || value.length === 0) return false;
    } else if (key === "toolCalls") {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isPlainCall)) return false;
    } else return false;
    keys++;
  }
  return keys > 0;
}

/**
 * Whether the script is all plain turns, text, tool calls and a stop (what a long test script is):
 * a shape ScriptSchema takes as it is, recognised without it. Validating a 1,001-turn script with
 * the schema took ~35 ms of a fresh process's first model call. False for anything else (errors,
 * delays, usage, any mistake): ScriptSchema judges those and names what is wrong.
 */
export function isPlainScript(raw: unknown): boolean {
  if (!isPlain(raw)) return false;
  for (const key in raw) if (key !== "turns") return false;
  const { turns } = raw;
  return Array.isArray(turns) && turns.length > 0 && turns.every(isPlainTurn);
}
