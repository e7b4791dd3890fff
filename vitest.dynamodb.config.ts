import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm run test:dynamodb`: the end-to-end suite (test/e2e/) once more, with every
 * runlog process (the CLI children and the in-process library) on the DynamoDB
 * adapter, against one in-process dynalite (test/support/dynamodbSuite.ts), each
 * data dir on a table of its own (test/support/cli.ts). `npm test` runs the same
 * files on the default store (SQLite): local runs and cloud runs behave the same.
 */
export default defineConfig({
  // Not "module": the AWS SDK's "module" builds do not load under Node.
  ssr: { resolve: { conditions: ["runlog-source", "node"] } },
  test: {
    include: ["test/e2e/**/*.test.ts"],
    exclude: [...configDefaults.exclude],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    globalSetup: ["test/support/tempRoot.ts", "test/support/build.ts", "test/support/dynamodbSuite.ts"],
    // What the suite must be on; test/e2e/dynamoAdapter.test.ts fails if the switch did not reach the runs.
    provide: { e2eStore: "dynamodb" },
  },
});
