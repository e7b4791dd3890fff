import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The repository's root. */
export const ROOT = join(import.meta.dirname, "..", "..");

/** A TypeScript source file, declaration files left out. */
export const isTypeScript = (path: string): boolean => path.endsWith(".ts") && !path.endsWith(".d.ts");

/** Every file under `dir` (a path from the root) that `keep` accepts, as a path from the root. */
export function sourceFiles(dir: string, keep: (path: string) => boolean = isTypeScript): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path, keep);
    return keep(path) ? [path] : [];
  });
}
