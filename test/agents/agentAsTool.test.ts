import { describe, expect, it } from "vitest";
import { agentAsTool } from "../../lib/agents/agentAsTool.ts";
import { defineAgent } from "../../lib/agents/defineAgent.ts";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { DEFAULT_MAX_SUBAGENT_DEPTH } from "../../lib/core/subagents.ts";
import { thrownBy } from "../support/thrown.ts";

const a = defineAgent({ name: "a", instructions: "x", model: "scripted:demo" });

describe("agentAsTool's options", () => {
  it.each([
    ["left out", undefined, "options", "give it options { name, description }"],
    ["empty", {}, "options.name", "options.name, the tool's name as the model calls it"],
    ["without a name", { description: "asks a" }, "options.name", "got undefined"],
    ["with a bad name", { name: "ask a", description: "asks a" }, "options.name", 'got the string "ask a"'],
    ["without a description", { name: "ask_a" }, "options.description", "must be a non-empty string"],
    ["with a blank description", { name: "ask_a", description: " " }, "options.description", "non-empty"],
    ["with maxDepth 0", { name: "ask_a", description: "d", maxDepth: 0 }, "options.maxDepth", "from 1 to 32"],
    [
      "with maxDepth 33",
      { name: "ask_a", description: "d", maxDepth: 33 },
      "options.maxDepth",
      "from 1 to 32",
    ],
    ["with maxDepth 1.5", { name: "ask_a", description: "d", maxDepth: 1.5 }, "options.maxDepth", "got 1.5"],
  ])("%s: an InvalidInputError naming what is missing or wrong, and the agent", (_, options, field, says) => {
    const error = thrownBy(() => agentAsTool(a, options as never));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain("agentAsTool(a)");
    expect((error as Error).message).toContain(says);
  });

  it("gives the tool its maxDepth, 8 unless given", () => {
    expect(agentAsTool(a, { name: "ask_a", description: "d" }).subagent).toMatchObject({
      agent: "a",
      maxDepth: DEFAULT_MAX_SUBAGENT_DEPTH,
    });
    expect(DEFAULT_MAX_SUBAGENT_DEPTH).toBe(8);
    expect(agentAsTool(a, { name: "ask_a", description: "d", maxDepth: 3 }).subagent).toMatchObject({
      maxDepth: 3,
    });
  });
});
