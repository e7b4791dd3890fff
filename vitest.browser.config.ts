import { defineConfig } from "vitest/config";

/**
 * `npm run test:browser`: the run viewer in a real browser (Debian's Chromium, driven by
 * playwright-core) against `runlog serve`. Not part of `npm test`, which needs no browser;
 * CI runs it (.ci/run installs Chromium when missing).
 */
export default defineConfig({
  // Not "module": the AWS SDK's "module" builds do not load under Node.
  ssr: { resolve: { conditions: ["runlog-source", "node"] } },
  test: {
    include: ["test/browser/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/support/tempRoot.ts", "test/support/build.ts"],
    maxWorkers: 1,
    // What a page shows arrives after requests and rendering: on a busy machine, past the default 1 s.
    expect: { poll: { timeout: 15_000 } },
  },
});
