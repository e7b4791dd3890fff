import { describe, expect, it } from "vitest";
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
