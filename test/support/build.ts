import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");

/**
 * vitest globalSetup: compile lib/, functions/ and cdk/ to dist/ once per test run
 * (incremental, about 2 s when nothing changed), because the `runlog` bin, the packed
 * tarball and the example project run the compiled JavaScript, as users do.
 */
export default function build(): void {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
}
