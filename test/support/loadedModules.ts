/**
 * What a fresh Node loaded, as a module `load` hook saw it: a child's code starts with LOAD_HOOK
 * and prints `[...loaded]` (every URL, in the order loaded); the test derives from those URLs here.
 */

/** The first lines of a child's ESM code: `loaded` collects the URL of every module loaded after it. */
export const LOAD_HOOK = `
  import { registerHooks } from "node:module";
  const loaded = new Set();
  registerHooks({ load(url, context, next) { loaded.add(url); return next(url, context); } });
`;

/**
 * The npm packages the URLs (or paths, as esbuild's metafile names its inputs) are in
 * (`@scope/name` for a scoped one), each once, sorted.
 */
export function packagesOf(urls: readonly string[]): string[] {
  const packages = new Set<string>();
  for (const url of urls) {
    const at = url.lastIndexOf("node_modules/");
    if (at < 0) continue;
    const [scope = "", name] = url.slice(at + "node_modules/".length).split("/");
    packages.add(scope.startsWith("@") ? `${scope}/${name}` : scope);
  }
  return [...packages].sort();
}

/** The URLs of files under `root` (a file: URL ending in /) outside any node_modules, relative to it. */
export function ownModulesOf(urls: readonly string[], root: string): string[] {
  return urls
    .filter((url) => url.startsWith(root) && !url.includes("/node_modules/"))
    .map((url) => url.slice(root.length));
}
