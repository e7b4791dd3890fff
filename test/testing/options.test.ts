import { describe, expect, it } from "vitest";
import { BUILT_IN_AGENTS } from "../../lib/agents/builtIn.ts";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { createTestRunlog } from "../../lib/testing/index.ts";

// From JavaScript nothing but these checks stands between a missing option and a TypeError deep inside.
const create = createTestRunlog as (options: unknown) => ReturnType<typeof createTestRunlog>;

describe("createTestRunlog's options", () => {
  it.each<[string, unknown, string]>([
    ["no agents", {}, "agents"],
    ["no options at all", undefined, "options"],
    ["agents as a list", { agents: [] }, "agents"],
  ])("%s is an InvalidInputError naming %s", async (_label, options, field) => {
    const error = await create(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field });
  });
});

describe("createTestRunlog's store", () => {
  const RUNLOG_ENV = {
    RUNLOG_TABLE: "a-deployed-table",
    RUNLOG_CRASH_AT: "model:before",
    RUNLOG_DIR: "/nonexistent/runlog-dir",
  };

  it("is its own temporary SQLite file whatever RUNLOG_* variables the shell holds (a sourced runlog.env, a fault)", async () => {
    const saved = Object.fromEntries(Object.keys(RUNLOG_ENV).map((name) => [name, process.env[name]]));
    Object.assign(process.env, RUNLOG_ENV);
    try {
      const local = await createTestRunlog({ agents: BUILT_IN_AGENTS, script: [{ text: "Hello" }] });
      try {
        expect(local.where).toContain(local.dataDir);
        expect(local.where).not.toContain("a-deployed-table");
        // No crash injected: the run completes in this process.
        const outcome = await local.runlog.start({ agent: "demo", input: "hi", model: local.model! });
        expect(outcome).toMatchObject({ status: "completed", output: "Hello" });
      } finally {
        await local.close();
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("reads the environment it is given", async () => {
    const error = await createTestRunlog({ agents: {}, env: { RUNLOG_DURABILITY: "sometimes" } }).catch(
      (e: unknown) => e,
    );
    expect(String(error)).toContain("RUNLOG_DURABILITY");
  });
});
