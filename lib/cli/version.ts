import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { whenMissing } from "./missing.ts";

interface Package {
  /** The directory holding runlog's package.json. */
  root: string;
  version: string;
}

/**
 * runlog's own package: the nearest package.json named "runlog" above this file,
 * whether it runs from lib/cli/ in a clone or from dist/bundle/ in an install.
 */
export async function runlogPackage(from: string = import.meta.url): Promise<Package> {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const text = await readFile(join(dir, "package.json"), "utf8").catch(whenMissing(undefined));
    const manifest =
      text === undefined ? undefined : (JSON.parse(text) as { name?: string; version?: string });
    if (manifest?.name === "runlog" && typeof manifest.version === "string") {
      return { root: dir, version: manifest.version };
    }
    if (dirname(dir) === dir) throw new Error(`no package.json of runlog above ${fileURLToPath(from)}`);
    dir = dirname(dir);
  }
}

/** runlog's version, from its package.json. */
export async function runlogVersion(from: string = import.meta.url): Promise<string> {
  return (await runlogPackage(from)).version;
}

/** The `runlog` bin of this install, for commands that start another runlog process. */
export async function runlogBin(): Promise<string> {
  return join((await runlogPackage()).root, "bin", "runlog.js");
}
