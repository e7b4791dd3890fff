import { describe, expect, it } from "vitest";
import * as z from "zod";
import { defineAgent } from "../../lib/agents/defineAgent.ts";
import { defineTool } from "../../lib/agents/defineTool.ts";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { thrownBy } from "../support/thrown.ts";

/** defineTool and defineAgent as plain JavaScript calls them: with anything. */
const looseTool = defineTool as (definition: unknown) => unknown;
const looseAgent = defineAgent as (definition: unknown) => unknown;

const tool = {
  name: "t",
  description: "A tool.",
  parameters: z.object({ q: z.string() }),
  run: () => "ok",
};
const agent = { name: "a", instructions: "Help.", model: "scripted:demo" };

describe("defineTool refuses, naming the field, what cannot work", () => {
  it.each<[string, unknown, string, string?]>([
    ["no definition", undefined, "definition"],
    ["no run", { ...tool, run: undefined }, "run", "run must be a function"],
    ["a bad name", { ...tool, name: "a b" }, "name", 'got the string "a b"'],
    [
      "no name",
      { ...tool, name: undefined },
      "name",
      "defineTool: name, the tool's name as the model calls it",
    ],
    ["a description that is not text", { ...tool, description: 5 }, "description"],
    ["idempotent given as text", { ...tool, idempotent: "yes" }, "idempotent", 'got the string "yes"'],
    [
      "needsApproval given as text",
      { ...tool, needsApproval: "yes" },
      "needsApproval",
      'got the string "yes"',
    ],
    ["timeoutMs given as text", { ...tool, timeoutMs: "100" }, "timeoutMs", 'got the string "100"'],
    ["a timeoutMs no timer can wait", { ...tool, timeoutMs: 2 ** 31 }, "timeoutMs"],
    ["approvalTimeoutMs of 0", { ...tool, needsApproval: true, approvalTimeoutMs: 0 }, "approvalTimeoutMs"],
    [
      "parameters that are not a zod schema",
      { ...tool, parameters: { type: "object" } },
      "parameters",
      "must be a zod schema",
    ],
    ["parameters of a string", { ...tool, parameters: z.string() }, "parameters", 'of type "string"'],
    ["parameters of an array", { ...tool, parameters: z.array(z.string()) }, "parameters", 'of type "array"'],
    [
      "parameters of a union",
      { ...tool, parameters: z.union([z.object({ a: z.string() }), z.object({ b: z.string() })]) },
      "parameters",
      "anyOf",
    ],
  ])("%s", (_label, definition, field, words) => {
    const error = thrownBy(() => looseTool(definition));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field });
    if (words !== undefined) expect((error as Error).message).toContain(words);
  });

  it("takes an object schema, however it is made", () => {
    expect(() => looseTool({ ...tool, parameters: z.record(z.string(), z.number()) })).not.toThrow();
    expect(() => looseTool({ ...tool, parameters: z.strictObject({}) })).not.toThrow();
  });
});

describe("defineAgent refuses, naming the field, what cannot work", () => {
  it.each<[string, unknown, string, string?]>([
    ["no definition", null, "definition"],
    ["a bad name", { ...agent, name: "a b" }, "name", 'got the string "a b"'],
    ["no name", { ...agent, name: undefined }, "name", "defineAgent: name must be 1-64 letters"],
    ["instructions that are not text", { ...agent, instructions: 3 }, "instructions"],
    ["no model", { ...agent, model: "" }, "model"],
    ["a model without its provider", { ...agent, model: "gpt-4o" }, "model", 'did you mean "openai:gpt-4o"?'],
    ["a model with no name after its provider", { ...agent, model: "openai:" }, "model"],
    ["a model whose prefix is no prefix", { ...agent, model: "1x:m" }, "model"],
    ["tools that are not a list", { ...agent, tools: "t" }, "tools"],
    ["a tool that is not one", { ...agent, tools: [{}] }, "tools[0]", "tools[0] is not a tool"],
    [
      "two tools of one name",
      { ...agent, tools: [defineTool(tool), defineTool(tool)] },
      "tools[1].name",
      "two tools",
    ],
    [
      "a tool named like a transfer",
      { ...agent, handoffs: ["b"], tools: [defineTool({ ...tool, name: "transfer_to_b" })] },
      "tools[0].name",
    ],
    [
      "a tool made without defineTool whose parameters are not an object",
      { ...agent, tools: [{ ...defineTool(tool), parameters: z.string() }] },
      "tools[0].parameters",
    ],
    ["an output of an array", { ...agent, output: z.array(z.string()) }, "output", 'of type "array"'],
    ["an output of a string", { ...agent, output: z.string() }, "output"],
  ])("%s", (_label, definition, field, words) => {
    const error = thrownBy(() => looseAgent(definition));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field });
    if (words !== undefined) expect((error as Error).message).toContain(words);
  });

  it("takes a spec of any provider's form, without building its model", () => {
    for (const model of ["openai:gpt-4o", "bedrock:anthropic.claude-v2:1", "scripted:demo", "mine:x"]) {
      expect(() => looseAgent({ ...agent, model })).not.toThrow();
    }
  });

  it("takes an object output", () => {
    expect(() => looseAgent({ ...agent, output: z.object({ items: z.array(z.string()) }) })).not.toThrow();
  });
});
