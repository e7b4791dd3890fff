import { mkdir, rm, stat, writeFile } from "node:fs/promises";
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
  /** False when it does not exist (and was not to be created): then it holds no runs. */
  exists: boolean;
}

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
 * before any store is opened. It must be a writable directory; a command that
 * only reads (`create` false) leaves a missing one missing, a command that
 * writes creates it. Every problem is a DataDirError saying what is wrong.
 */
export async function dataDir(
  flag: string | undefined,
  configured: string,
  { create }: { create: boolean },
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
      await mkdir(path, { recursive: true });
    } catch (error) {
      if (code(error) === "ENOTDIR" || code(error) === "EEXIST") {
        throw new DataDirError(path, `cannot be created: ${await fileAbove(path)} is not a directory`);
      }
      throw new DataDirError(path, `cannot be created (${reason(error)})`, { cause: error });
    }
  } else if (!found.isDirectory()) {
    throw new DataDirError(path, "is a file, not a directory");
  }
  await checkWritable(path);
  return { path, exists: true };
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
