#!/usr/bin/env node
// The runlog CLI. TypeScript sources are loaded through tsx, so there is no build step.
import { register } from "tsx/esm/api";

// The SDK warns on every command that its 2027 releases will need Node 22; runlog says so once, in its README.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
register();
const { main } = await import("../lib/cli/main.ts");
process.exit(await main(process.argv.slice(2)));
