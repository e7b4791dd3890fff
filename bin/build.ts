/**
 * `npm run build`: tsc compiles lib/, functions/ and cdk/ to dist/ (the declarations every
 * entry point's types come from, and the modules the construct bundles into each Lambda);
 * then esbuild bundles the package's runtime entry points (`runlog`, `runlog/http`,
 * `runlog/testing`, `runlog/client` and the CLI) into dist/bundle/.
 *
 * Why bundle: `import "runlog"` otherwise loads some 150 of runlog's own modules one by one,
 * and Node resolves, reads, compiles and links each; a handful of files load in a fraction of
 * that time. The entries are built together with code splitting, so what two entries share
 * (the error classes a test matches with `instanceof`, the event schemas) is one module, and a
 * dynamic `import()` (a model adapter, a store, a CLI command) stays a chunk loaded when used.
 * Dependencies stay external: the user's zod, AWS SDK and openai are the ones installed.
 */
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";

const ROOT = join(import.meta.dirname, "..");

/** The bundled entry points, by their file name in dist/bundle/. */
export const BUNDLE_ENTRIES = {
  index: "lib/index.ts",
  http: "lib/http/public.ts",
  testing: "lib/testing/index.ts",
  client: "lib/client/index.ts",
  cli: "lib/cli/process.ts",
} as const;

export async function buildPackage(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
  const outdir = join(ROOT, "dist", "bundle");
  // Chunk names carry a content hash: without this, a rebuild would leave the old ones beside the new.
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: ROOT,
    entryPoints: BUNDLE_ENTRIES,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    packages: "external",
    // Class and function names stay as written: error names and stack traces read as in the source.
    keepNames: true,
    // Linked, not inline: Node never reads a .map unless asked (--enable-source-maps).
    sourcemap: "linked",
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
  });
}

if (import.meta.main ?? process.argv[1] === import.meta.filename) await buildPackage();
