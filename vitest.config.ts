import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm test`. The long reliability suites and the DynamoDB Local contract run
 * with `npm run test:reliability` (vitest.reliability.config.ts), which CI also runs.
 */
export default defineConfig({
  // `#agents` resolves to functions/agents.ts here, to dist/ in the published package.
  // Not "module": the AWS SDK's "module" builds do not load under Node.
  ssr: { resolve: { conditions: ["runlog-source", "node"] } },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [
      ...configDefaults.exclude,
      "test/reliability/**",
      "test/browser/**",
      "test/contract/dynamodbLocal.test.ts",
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two workers: vitest's default is one fewer than the CPUs, so one on a 2-core machine, which
    // ran the files one at a time while most of them wait on spawned processes and disk syncs.
    maxWorkers: 2,
    globalSetup: ["test/support/tempRoot.ts", "test/support/build.ts"],
  },
});
