import { chmodSync, closeSync, openSync, statSync } from "node:fs";

/** Owner read and write only: the store holds every run's inputs and outputs. */
export const PRIVATE_FILE_MODE = 0o600;

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, "0");

/** The file's permission bits, or undefined when it does not exist. */
export function modeOf(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
}

/**
 * Create `file` 0600 if missing (the umask can only narrow that), so SQLite opens a file no other
 * user can read; SQLite creates the -wal and -shm sidecars with the database file's mode.
 */
export function createPrivate(file: string): void {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
}

/**
 * Make the store's files 0600. `before` holds the modes they had before this open (undefined: it
 * did not exist): one that other users could already read gets a warning naming it and its mode;
 * one created now is set silently (a umask of 0 or 0277 still ends at 0600). One this user may
 * not change (another user's file, in a dir shared with them) is left as it is, with a warning
 * saying so when other users can read it, as a data dir that cannot be made private is: the
 * store is still used.
 */
export function tightenFiles(
  files: readonly string[],
  before: ReadonlyMap<string, number | undefined>,
  warn: (line: string) => void,
): void {
  for (const file of files) {
    const mode = modeOf(file);
    if (mode === undefined || mode === PRIVATE_FILE_MODE) continue;
    try {
      chmodSync(file, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((mode & 0o077) !== 0)
        warn(`runlog: ${file} is mode ${octal(mode)}, readable by other users; ${cannot(error)}`);
      continue;
    }
    const old = before.get(file);
    if (old !== undefined && (old & 0o077) !== 0)
      warn(`runlog: ${file} was mode ${octal(old)}, readable by other users; set to 0600`);
  }
}

/** Why a file could not be made 0600, and who can. */
function cannot(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EPERM") return "cannot set 0600: it belongs to another user, who can (chmod 600)";
  return `cannot set 0600 (${code === "EROFS" ? "read-only file system" : (error as Error).message})`;
}
