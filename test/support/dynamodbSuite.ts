import { startDynalite } from "./dynalite.ts";

/**
 * The one switch that puts the end-to-end suite on the DynamoDB adapter: the
 * endpoint of the suite's DynamoDB-compatible server. Read only by
 * test/support/cli.ts, which hands it (and a table per data dir) to every runlog
 * process a test starts.
 */
export const SUITE_ENDPOINT_VARIABLE = "RUNLOG_E2E_DYNAMODB_ENDPOINT";

declare module "vitest" {
  export interface ProvidedContext {
    /** The store the config expects the suite on (unset: SQLite); test/e2e/dynamoAdapter.test.ts checks it is the one used. */
    e2eStore?: "dynamodb";
  }
}

/**
 * vitest globalSetup of vitest.dynamodb.config.ts: one in-memory dynalite in the
 * vitest process for the whole run. Set in process.env before the workers start,
 * so the workers (and the CLI children they spawn) inherit it.
 */
export default async function dynamodbSuite(): Promise<() => Promise<void>> {
  const server = await startDynalite();
  process.env[SUITE_ENDPOINT_VARIABLE] = server.endpoint;
  return async () => {
    delete process.env[SUITE_ENDPOINT_VARIABLE];
    await server.stop();
  };
}
