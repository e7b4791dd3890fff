import { buildPackage } from "../../bin/build.ts";

/**
 * vitest globalSetup: build dist/ once per test run, as `npm run build` does (tsc is
 * incremental, about 2 s when nothing changed; the bundles take well under a second),
 * because the `runlog` bin, the packed tarball and the example project run the built
 * JavaScript, as users do.
 */
export default async function build(): Promise<void> {
  // A test run started by another test (test/support/iam/handlerCalls.ts) finds dist/ built by
  // its parent's run: building again would rewrite it under the CLI processes the parent's other
  // files are running at that moment.
  if (process.env[BUILT_VARIABLE] === "1") return;
  await buildPackage();
}

/** Set by a test run that starts a test run of its own: dist/ is built, and in use. */
export const BUILT_VARIABLE = "RUNLOG_TEST_DIST_BUILT";
