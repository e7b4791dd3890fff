import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UsageError } from "./usage.ts";

/**
 * A file a command will write (`script --out`, `replay --junit`): its directory must exist now, so
 * a typo fails with the flag named, before the command reads or runs anything.
 */
export function writablePath(command: string, flag: string, path: string): string {
  const full = resolve(path);
  const parent = dirname(full);
  if (!existsSync(parent) || !statSync(parent).isDirectory())
    throw new UsageError(`${command}: ${flag} ${path}: ${parent} is not a directory`);
  if (existsSync(full) && statSync(full).isDirectory())
    throw new UsageError(`${command}: ${flag} ${JSON.stringify(path)} is a directory, not a file`);
  return full;
}
