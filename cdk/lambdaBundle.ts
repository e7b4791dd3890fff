import { createRequire } from "node:module";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AssetHashType, DockerImage } from "aws-cdk-lib";
import { Code } from "aws-cdk-lib/aws-lambda";
import type { BuildOptions } from "esbuild";
import { RunlogPropsError } from "./propsError.ts";

/** The name the functions import their agents by; see functions/agents.ts. */
export const AGENTS_IMPORT = "#agents";

// Bundled CommonJS dependencies call require(); an ES module has none unless we make one.
const REQUIRE_SHIM =
  "import { createRequire as __runlogCreateRequire } from 'node:module'; const require = __runlogCreateRequire(import.meta.url);";

/** Whether cdk/ runs as its TypeScript sources (tests, a linked checkout) or compiled, from dist/. */
export const FROM_SOURCES = extname(fileURLToPath(import.meta.url)) === ".ts";

/**
 * node:http, imported through cdk/nodeHttp.cts. Node makes an ES module of a builtin by reading
 * every export it has, and three of node:http's (WebSocket, CloseEvent, MessageEvent) are getters
 * that load undici: about 10 ms of every cold start, for a module the AWS SDK's HTTP handler imports
 * for `request` and `Agent`. Through a CommonJS module of the bundle it is Node's own object, whose
 * exports are read when used. ".cts" from the sources, ".cjs" from dist/, as this file is.
 */
const HTTP_SHIM = fileURLToPath(new URL(`./nodeHttp${FROM_SOURCES ? ".cts" : ".cjs"}`, import.meta.url));

/**
 * How a function is bundled: ESM for Node 22, minified, class names kept (error names travel to
 * Step Functions and the log), a linked source map without the sources' content (read only when
 * a logged stack is mapped: functions/observability/mappedStack.ts), the AWS SDK inside.
 *
 * Split into chunks: what a handler reaches only by `import()` (a model's SDK, the MCP SDK, a
 * client one path uses) is a file of its own, read when first used. In one file, V8 would still
 * read and pre-parse all of it on every cold start: CallModel's single file was 1.48 MB, its
 * entry and what it imports statically are 0.7 MB, and it imports in three quarters of the time.
 */
export function bundleOptions(entry: string, agentsModule: string, workingDir: string): BuildOptions {
  return {
    entryPoints: { index: entry },
    absWorkingDir: workingDir,
    bundle: true,
    splitting: true,
    format: "esm",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    platform: "node",
    target: "node22",
    mainFields: ["module", "main"],
    banner: { js: REQUIRE_SHIM },
    minify: true,
    keepNames: true,
    sourcemap: "linked",
    sourcesContent: false,
    alias: { [AGENTS_IMPORT]: agentsModule, http: HTTP_SHIM, "node:http": HTTP_SHIM },
    logLevel: "warning",
  };
}

type Esbuild = typeof import("esbuild");

/** The project's esbuild (a peer dependency), else the one beside runlog (`beside`). */
export function loadEsbuild(projectRoot: string, beside: string = import.meta.url): Esbuild {
  for (const from of [join(projectRoot, "package.json"), beside]) {
    try {
      return createRequire(from)("esbuild") as Esbuild;
    } catch {
      // Not installed there: the next place.
    }
  }
  throw new RunlogPropsError(
    "projectRoot",
    `${projectRoot}: runlog bundles its functions with esbuild, which is not installed: run \`npm install --save-dev esbuild\``,
  );
}

/**
 * A function's code: `entry` bundled by the project's esbuild on this machine (never in Docker),
 * so what runs is what the tests ran. The asset is named by the hash of the bundle itself.
 */
export function bundledCode(entry: string, agentsModule: string, projectRoot: string): Code {
  return Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never pulled: the local bundling below always bundles, or fails saying why.
      image: DockerImage.fromRegistry("runlog-bundles-locally"),
      // What tells two functions' bundles apart in CDK's cache of bundles (it ignores `local`).
      command: ["esbuild", entry, `--alias:${AGENTS_IMPORT}=${agentsModule}`],
      local: {
        tryBundle(outputDir) {
          loadEsbuild(projectRoot).buildSync({
            ...bundleOptions(entry, agentsModule, projectRoot),
            outdir: outputDir,
          });
          return true;
        },
      },
    },
  });
}
