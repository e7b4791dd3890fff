import { chmod, mkdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { DEFAULT_DATA_DIR, NAMES } from "../runtime/config.ts";
import { whenMissing } from "./missing.ts";
import { UsageError } from "./usage.ts";

/** The data dir cannot be used: exit 2, naming the directory and what is wrong with it. */
export class DataDirError extends UsageError {
  constructor(
    readonly dir: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(`data dir ${dir} ${problem}`, options);
  }
}

export interface DataDir {
  /** The absolute path. */
  path: string;
  /**
   * False when it holds no runs and was not to be created: it does not exist, or it holds no store
   * (a dir of your own, named by mistake). Nothing in it was touched then.
   */
  exists: boolean;
}

/**
 * The local store's file in a data dir, by which a dir is known to hold runs. The name
 * lib/adapters/sqlite's `sqliteFile` gives it (the CLI may not import an adapter: see
 * test/architecture/layers.test.ts).
 */
const STORE_FILE = "runlog.db";

const code = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on the device",
  EDQUOT: "disk quota exceeded",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "too many symbolic links in the path",
  ENOENT: "no such file or directory",
};
const reason = (error: unknown) => REASONS[code(error) ?? ""] ?? (error as Error).message;

/**
 * The data dir a command uses: `--dir`, else the configured one (its variable, else ./.runlog), checked
 * before any store is opened. It must be a writable directory. A command that starts runs
 * (`create`) creates a missing one and makes it private (0700). Any other command changes nothing
 * of a dir: one that is missing or holds no store is reported as holding no runs (`exists` false),
 * untouched; one that holds a store keeps its mode (a warning says when other users can enter it).
 * Every problem is a DataDirError saying what is wrong.
 */
export async function dataDir(
  flag: string | undefined,
  configured: string,
  {
    create,
    warn = (line) => process.stderr.write(`${line}\n`),
  }: {
    create: boolean;
    /** Told when the dir other users could read is made private (0700). @default writes to stderr */
    warn?: (line: string) => void;
  },
): Promise<DataDir> {
  if (flag === "") {
    throw new UsageError(
      `--dir must not be empty; leave it out for the default ($${NAMES.dataDir}, else "${DEFAULT_DATA_DIR.local}")`,
    );
  }
  const path = resolve(flag ?? configured);
  const found = await stat(path).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (found instanceof Error) {
    if (found.code === "ENOTDIR") {
      throw new DataDirError(path, `cannot be created: ${await fileAbove(path)} is not a directory`);
    }
    if (found.code !== "ENOENT") throw new DataDirError(path, `cannot be read (${reason(found)})`);
    if (!create) return { path, exists: false };
    try {
      await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
      // The umask may have narrowed it further (0o277 leaves it unwritable): exactly 0700.
      await chmod(path, PRIVATE_DIR_MODE);
    } catch (error) {
      if (code(error) === "ENOTDIR" || code(error) === "EEXIST") {
        throw new DataDirError(path, `cannot be created: ${await fileAbove(path)} is not a directory`);
      }
      throw new DataDirError(path, `cannot be created (${reason(error)})`, { cause: error });
    }
  } else if (!found.isDirectory()) {
    throw new DataDirError(path, "is a file, not a directory");
  } else if (!create && !(await holdsStore(path))) {
    return { path, exists: false };
  }
  await checkWritable(path);
  if (!(found instanceof Error)) {
    if (create) await makePrivate(path, found.mode, warn);
    else warnIfOpen(path, found.mode, warn);
  }
  return { path, exists: true };
}

/** Whether the dir holds a store file; one that cannot be looked at is a DataDirError. */
async function holdsStore(path: string): Promise<boolean> {
  const file = join(path, STORE_FILE);
  const found = await stat(file).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (!(found instanceof Error)) return true;
  if (found.code === "ENOENT" || found.code === "ENOTDIR") return false;
  throw new DataDirError(path, `cannot be read (${reason(found)})`, { cause: found });
}

/** A command that starts no run leaves the dir's mode as it is: it only says when other users can enter it. */
function warnIfOpen(path: string, mode: number, warn: (line: string) => void): void {
  if ((mode & 0o077) === 0 || (mode & 0o1000) !== 0) return;
  warn(
    `runlog: data dir ${path} is mode ${octal(mode)}, open to other users; left as it is (a command that starts a run sets it to 0700)`,
  );
}

/** Owner only: the dir holds every run's store, logs and tool files. */
const PRIVATE_DIR_MODE = 0o700;
const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, "0");

/**
 * Tighten a data dir other users can enter to 0700, with a warning naming it and its old mode. A
 * shared dir (sticky bit, as /tmp) is left as it is, with a warning: chmod would lock others out of
 * their own files there; the store's files are 0600 all the same.
 */
async function makePrivate(path: string, mode: number, warn: (line: string) => void): Promise<void> {
  if ((mode & 0o077) === 0) return;
  if ((mode & 0o1000) !== 0) {
    warn(
      `runlog: data dir ${path} is a shared dir (mode ${octal(mode)}); left as it is, store files are 0600`,
    );
    return;
  }
  try {
    await chmod(path, PRIVATE_DIR_MODE);
    warn(`runlog: data dir ${path} was mode ${octal(mode)}, open to other users; set to 0700`);
  } catch (error) {
    warn(
      `runlog: data dir ${path} is mode ${octal(mode)}, open to other users; cannot set 0700 (${reason(error)})`,
    );
  }
}

/**
 * Write and remove a file: the permission bits do not tell (root passes them,
 * a read-only mount or sysfs still refuses).
 */
async function checkWritable(path: string): Promise<void> {
  const probe = join(path, `.runlog-write-check-${process.pid}`);
  try {
    await writeFile(probe, "", { flag: "wx" });
  } catch (error) {
    if (code(error) !== "EEXIST") {
      throw new DataDirError(path, `is not writable (${reason(error)})`, { cause: error });
    }
  }
  await rm(probe, { force: true });
}

/** The nearest ancestor of `path` that exists and is not a directory. */
async function fileAbove(path: string): Promise<string> {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    const found = await stat(at).catch(whenMissing(undefined));
    if (found && !found.isDirectory()) return at;
  }
  return dirname(path);
}
