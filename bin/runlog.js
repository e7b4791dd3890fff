#!/usr/bin/env node
// The runlog CLI: lib/cli compiled to dist/ (npm run build; `prepare` runs it on install).
import { enableCompileCache } from "node:module";

// Node keeps the compiled code of what a command loads (in the OS temp dir), so the next one starts faster.
enableCompileCache?.();
const { runCli } = await import("../dist/lib/cli/process.js");
await runCli(process.argv.slice(2));
