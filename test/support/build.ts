import { buildPackage } from "../../bin/build.ts";

/**
 * vitest globalSetup: build dist/ once per test run, as `npm run build` does (tsc is
 * incremental, about 2 s when nothing changed; the bundles take well under a second),
 * because the `runlog` bin, the packed tarball and the example project run the built
 * JavaScript, as users do.
 */
export default async function build(): Promise<void> {
  await buildPackage();
}
