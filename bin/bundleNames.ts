/**
 * The package's bundles are built without esbuild's `keepNames` (bin/build.ts), so a class keeps
 * the name it is written with only while no other bundled module declares a class of that name:
 * esbuild renames the second one `Name2`. A class's name is data here, not decoration: an error's
 * `name` and `code` are its class's (lib/core/errors.ts), stored in events and returned by the
 * API. This finds such renames in what esbuild wrote, so the build fails instead of shipping them.
 */

/** `class Name` (a declaration, or a named class expression) and `Name = class` (how esbuild writes one). */
const CLASS_NAMES = /\bclass\s+([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$]*)\s*=\s*class\b/g;

/** The names given to classes in `code`: TypeScript sources or esbuild's output. */
export function classNames(code: string): Set<string> {
  const names = new Set<string>();
  for (const match of code.matchAll(CLASS_NAMES)) {
    const name = match[1] ?? match[2];
    // `class extends Base` (an anonymous class expression) matches as a class named "extends".
    if (name !== undefined && name !== "extends") names.add(name);
  }
  return names;
}

/**
 * The class names that `bundled` (esbuild's output files) declares and no file of `sources` does:
 * classes esbuild renamed, sorted. Empty when every bundled class has its own name.
 */
export function renamedClasses(bundled: Iterable<string>, sources: Iterable<string>): string[] {
  const written = new Set<string>();
  for (const source of sources) for (const name of classNames(source)) written.add(name);
  const renamed = new Set<string>();
  for (const output of bundled) {
    for (const name of classNames(output)) if (!written.has(name)) renamed.add(name);
  }
  return [...renamed].sort();
}
