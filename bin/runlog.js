#!/usr/bin/env node
// The runlog CLI: lib/cli compiled to dist/ (`npm run build`; the published package ships it built).
import { existsSync } from "node:fs";
import { enableCompileCache } from "node:module";

const entry = new URL("../dist/lib/cli/process.js", import.meta.url);
if (!existsSync(entry)) {
  // Only in a clone of runlog's repository, before its first build.
  process.stderr.write("runlog: dist/ is not built yet; run `npm run build` in the runlog repository\n");
  process.exit(2);
}
// Node keeps the compiled code of what a command loads (in the OS temp dir), so the next one starts faster.
enableCompileCache?.();
const { runCli } = await import(entry.href);
await runCli(process.argv.slice(2));
