import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { UsageError } from "./usage.ts";

/** Bytes of randomness in a per-start token: 256 bits. */
const TOKEN_BYTES = 32;
/** A token file longer than this is not a token file. */
const MAX_TOKEN_FILE_BYTES = 4096;
/** The shortest token a --token-file may hold: guessing must stay out of reach. */
const MIN_TOKEN_CHARS = 32;

/** The token refused: exit 2, naming the file and what is wrong with it. */
export class TokenFileError extends UsageError {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`serve: --token-file ${file} ${problem}`);
  }
}

/**
 * The token `runlog serve` requires: read from `--token-file` (a regular file no other user can
 * read or write, holding one token of at least 32 characters), else 32 fresh random bytes per start.
 */
export async function serveToken(file: string | undefined): Promise<string> {
  if (file === undefined) return randomBytes(TOKEN_BYTES).toString("base64url");
  // O_NONBLOCK: a FIFO named here must not hang the start.
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: unknown) => {
    throw new TokenFileError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`);
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new TokenFileError(file, "is not a regular file");
    if ((stats.mode & 0o077) !== 0)
      throw new TokenFileError(
        file,
        `is mode ${(stats.mode & 0o777).toString(8).padStart(4, "0")}: other users could read it; chmod 600 it`,
      );
    const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_TOKEN_FILE_BYTES)
      throw new TokenFileError(file, `is larger than ${MAX_TOKEN_FILE_BYTES} bytes`);
    const token = buffer.subarray(0, bytesRead).toString("utf8").trim();
    if (token.length < MIN_TOKEN_CHARS || !/^[\x21-\x7e]+$/.test(token))
      throw new TokenFileError(
        file,
        `must hold one token of at least ${MIN_TOKEN_CHARS} printable characters, no spaces`,
      );
    return token;
  } finally {
    await handle.close();
  }
}
