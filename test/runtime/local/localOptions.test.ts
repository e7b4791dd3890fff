import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openLocal } from "../../../lib/api/local.ts";
import { InvalidInputError } from "../../../lib/core/errors.ts";
import { openLocalRuntime } from "../../../lib/runtime/local/localRuntime.ts";
import { cleanup, tempDataDir } from "../../support/cli.ts";

const dir = tempDataDir("local-options");
afterAll(() => cleanup(dir));
const data = join(dir, "data");
const open = openLocalRuntime as (options: unknown) => Promise<unknown>;
const openPublic = openLocal as (options: unknown) => Promise<unknown>;

describe("openLocal's options, checked before anything opens", () => {
  it.each<[string, unknown, string]>([
    ["null options", null, "options"],
    ["a numeric data dir", { dataDir: 5 }, "dataDir"],
    ["a negative lease", { dataDir: data, leaseMs: -1 }, "leaseMs"],
    ["no steps per execution", { dataDir: data, stepsPerExecution: 0 }, "stepsPerExecution"],
    ["negative steps per execution", { dataDir: data, stepsPerExecution: -3 }, "stepsPerExecution"],
    ["an agent that is not a factory", { dataDir: data, agents: { a: { name: "a" } } }, "agents.a"],
    ["agents that are a list", { dataDir: data, agents: [] }, "agents"],
    ["background given as text", { dataDir: data, background: "yes" }, "background"],
  ])("%s is an InvalidInputError naming the option", async (_label, options, field) => {
    const error = await open(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain(field);
    expect(existsSync(data)).toBe(false);
  });

  it("openLocal(null), the public entry, is refused as such before it reads any option", async () => {
    const error = await openPublic(null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "options" });
  });
});
