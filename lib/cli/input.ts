import { readFile } from "node:fs/promises";
import { UsageError } from "./usage.ts";

/** Where a command's text may come from besides its argument: `--input-file PATH`. */
export const INPUT_FILE = { "input-file": { type: "string" } } as const;

export interface InputSources {
  /** What the text is called in messages: "prompt", "message", "input". */
  what: string;
  /** The positional argument: the text itself, or `-` for stdin. */
  argument: string | undefined;
  /** --input-file PATH. */
  file: string | undefined;
  /** Reads all of stdin. @default process.stdin */
  stdin?: () => Promise<Buffer>;
}

/**
 * A command's text, from its argument, from stdin (`-`) or from a file
 * (`--input-file`): the way in for a prompt longer than an argument list
 * holds. Read text loses one trailing newline (what `echo` and editors add).
 * Undefined when none was given; a usage error when two were, when the file
 * cannot be read, or when the text is empty.
 */
export async function readInput({
  what,
  argument,
  file,
  stdin = readStdin,
}: InputSources): Promise<string | undefined> {
  if (file !== undefined && argument !== undefined) {
    throw new UsageError(
      `give the ${what} as an argument, as - (stdin) or with --input-file, not two of them`,
    );
  }
  if (file === "") throw new UsageError("--input-file must not be empty");
  if (file !== undefined) return check(what, `file ${file}`, decode(what, `file ${file}`, await read(file)));
  if (argument === "-") return check(what, "stdin", decode(what, "stdin", await stdin()));
  return argument;
}

async function read(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "it is a directory"
          : code === "EACCES"
            ? "permission denied"
            : (error as Error).message;
    throw new UsageError(`--input-file ${file} cannot be read: ${why}`, { cause: error });
  }
}

function decode(what: string, source: string, bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new UsageError(`the ${what} in ${source} is not UTF-8 text`, { cause: error });
  }
}

function check(what: string, source: string, text: string): string {
  const trimmed = text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") ? text.slice(0, -1) : text;
  if (trimmed.trim() === "") throw new UsageError(`the ${what} in ${source} is empty`);
  return trimmed;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
