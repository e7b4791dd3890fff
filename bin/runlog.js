#!/usr/bin/env node
// The runlog CLI. TypeScript sources are loaded through tsx, so there is no build step.
import { setMaxListeners } from "node:events";
import { register } from "tsx/esm/api";

// The SDK warns on every command that its 2027 releases will need Node 22; runlog says so once, in its README.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
// aws-local-stepfunctions adds one abort listener per Map iteration to a signal runlog cannot reach;
// past 10 Node warns of a leak on every long local run. It is not one: the execution drops them all.
setMaxListeners(1000);
register();
const { main } = await import("../lib/cli/main.ts");
process.exit(await main(process.argv.slice(2)));
