import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RunEvent } from "../../lib/core/events.ts";
import { cleanup, events, library, notes, runlog, runlogJson, tempDataDir } from "../support/cli.ts";
import { type InProcessDynalite, startDynalite } from "../support/dynalite.ts";
import { connectStore } from "../support/store.ts";

/**
 * The end-to-end path once on the DynamoDB adapter (the one AWS runs): the
 * CLI pointed at a DynamoDB-compatible server by RUNLOG_DYNAMODB_ENDPOINT
 * (dynalite in this process), a crash after a side effect, and a resume.
 * The other e2e files run on the default local store (SQLite) in `npm test`,
 * and all of them on the DynamoDB adapter in `npm run test:dynamodb`.
 */
const dir = tempDataDir("e2e-dynamo");
let server: InProcessDynalite;
let env: Record<string, string>;
beforeAll(async () => {
  server = await startDynalite();
  env = { RUNLOG_DYNAMODB_ENDPOINT: server.endpoint, RUNLOG_TABLE: "e2e" };
});
afterAll(async () => {
  await cleanup(dir);
  await server.stop();
});

describe("the CLI on the DynamoDB adapter", () => {
  it("crashes after a note is written, resumes to completion, and writes each note once", async () => {
    const crashed = await runlog(dir, ["run", "--run-id", "r", "Plan my afternoon"], {
      ...env,
      RUNLOG_CRASH_AT: "tool:after-run@2",
    });
    expect(crashed.code, crashed.stderr).toBe(137);
    const point = await runlogJson(dir, ["resume-point", "r"], env);
    expect(point.json).toMatchObject({ resumable: true, kind: "recover_tools" });
    const resumed = await runlogJson(dir, ["resume", "r"], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json).toMatchObject({ runId: "r", status: "completed" });

    const { store, where, close } = await connectStore({ env });
    try {
      expect(where).toBe(`DynamoDB at ${server.endpoint}, table e2e`);
      const log: RunEvent[] = await store.read("r");
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
      expect(log.filter((e) => e.type === "resumed")).toHaveLength(1);
      expect(log.at(-1)).toMatchObject({ type: "model_response", stop: "stop" });
      expect((await store.getHead("r"))?.status).toBe("completed");
    } finally {
      await close();
    }
    expect(new Set(notes(dir)).size).toBe(notes(dir).length);
    expect(notes(dir).length).toBeGreaterThan(0);
    // Nothing went to the local store.
    expect(existsSync(join(dir, "runlog.db"))).toBe(false);
  });
});

describe("the store this run of the e2e suite is on", () => {
  const suiteDir = tempDataDir("e2e-store");
  afterAll(() => cleanup(suiteDir));

  // `npm run test:dynamodb` proves nothing if its runs quietly went to SQLite.
  it("is the one its config chose, for the CLI and the library alike", async () => {
    const onDynamo = inject("e2eStore") === "dynamodb";
    const run = await runlog(suiteDir, ["run", "--run-id", "where", "hi"]);
    expect(run.code, run.stderr).toBe(0);
    expect((await library(suiteDir)).where).toMatch(
      onDynamo ? /^DynamoDB at http:\/\/127\.0\.0\.1:\d+, table \S+$/ : /^SQLite, /,
    );
    expect((await events(suiteDir, "where")).at(-1)).toMatchObject({ type: "model_response", stop: "stop" });
    expect(existsSync(join(suiteDir, "runlog.db"))).toBe(!onDynamo);
  });
});
