#!/usr/bin/env node
// The runlog CLI: lib/cli compiled and bundled to dist/bundle/ (`npm run build`; the published package ships it built).
// Written so that any Node can load this file: the version check comes before anything Node 22 has.
import { existsSync } from "node:fs";
import module from "node:module";

const dist = new URL("../dist/lib/", import.meta.url);
const cli = new URL("../dist/bundle/cli.js", import.meta.url);
if (!existsSync(cli)) {
  // Only in a clone of runlog's repository, before its first build.
  process.stderr.write("runlog: dist/ is not built yet; run `npm run build` in the runlog repository\n");
  process.exit(2);
}
const { unsupportedNode } = await import(new URL("core/nodeSupport.js", dist).href);
const problem = unsupportedNode(process.versions.node);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
// Node keeps the compiled code of what a command loads (in the OS temp dir), so the next one starts faster.
module.enableCompileCache?.();
const { runCli } = await import(cli.href);
await runCli(process.argv.slice(2));
