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
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { build } from "esbuild";
import { renamedClasses } from "./bundleNames.ts";

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
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: BUNDLE_ENTRIES,
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    packages: "external",
    // No `keepNames`: it wraps every function the code creates, each closure of every turn
    // included, in a call that redefines its `name`; a turn took 8 % more CPU with it, and 200
    // runs at once 13 % (bench/HISTORY.md, 2026-12-06 22:46). What it guarded, a class renamed
    // because two bundled modules declare one of that name (an error's name is its class's),
    // fails the build below. A function so renamed shows as `name2` in a stack trace.
    // Linked, not inline: Node never reads a .map unless asked (--enable-source-maps).
    sourcemap: "linked",
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
    metafile: true,
  });
  const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
  const renamed = renamedClasses(
    Object.keys(metafile.outputs)
      .filter((file) => file.endsWith(".js"))
      .map(read),
    Object.keys(metafile.inputs).map(read),
  );
  if (renamed.length > 0) {
    throw new Error(
      `esbuild renamed the classes ${renamed.join(", ")} in dist/bundle/: two bundled modules declare a class of ` +
        "that name, and a class's name is data (an error's name and code); give one of them another name",
    );
  }
}

if (import.meta.main ?? process.argv[1] === import.meta.filename) await buildPackage();
