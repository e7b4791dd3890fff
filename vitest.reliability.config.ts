import { defineConfig } from "vitest/config";

/**
 * `npm run test:reliability`: the crash matrix, concurrency, store faults, bad
 * input and the store contract on DynamoDB Local. Long, so not part of `npm test`.
 * Two workers and two concurrent cases each: the suites spawn CLI processes, and
 * the machine has two cores.
 */
export default defineConfig({
  // Not "module": the AWS SDK's "module" builds do not load under Node.
  ssr: { resolve: { conditions: ["runlog-source", "node"] } },
  test: {
    include: ["test/reliability/**/*.test.ts", "test/contract/dynamodbLocal.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/support/tempRoot.ts", "test/support/build.ts"],
    maxWorkers: 2,
    maxConcurrency: 2,
  },
});
