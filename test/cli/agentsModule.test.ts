import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, runlog, runlogJson, tempDataDir } from "../support/cli.ts";

// A user's agents module, outside the repository, in TypeScript: it imports the compiled
// package (as `runlog` would resolve once installed) and zod, by absolute URL.
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
const zodUrl = pathToFileURL(join(ROOT, "node_modules", "zod", "index.js")).href;
const AGENTS = `
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { defineAgent, defineTool } from "${runlogUrl}";
import { z } from "${zodUrl}";

const stamp = (dataDir: string) =>
  defineTool({
    name: "stamp",
    description: "Stamp a word into stamps.txt.",
    parameters: z.object({ word: z.string() }),
    run: ({ word }: { word: string }) => {
      appendFileSync(join(dataDir, "stamps.txt"), word + "\\n");
      return "stamped " + word;
    },
  });

export const agents = {
  stamper: defineAgent({
    name: "stamper",
    instructions: "Stamp words.",
    model: "scripted:" + join(import.meta.dirname, "script.json"),
    tools: ({ dataDir }) => [stamp(dataDir)],
  }),
};
`;
// The same module shape with a model of its own beside its agents: the agent's model is `upper:…`.
const OWN_MODEL = `
import { defineAgent } from "${runlogUrl}";

export const agents = {
  echoer: defineAgent({ name: "echoer", instructions: "Echo.", model: "upper:loud" }),
};

export const models = {
  upper: (name: string) => ({
    spec: "upper:" + name,
    call: async (request: { messages: { role: string; content: string }[] }) => ({
      text: name + ": " + (request.messages.at(-1)?.content ?? "").toUpperCase(),
      toolCalls: [],
      stop: "stop",
    }),
  }),
};
`;
const SCRIPT = {
  turns: [{ toolCalls: [{ name: "stamp", arguments: { word: "kiwi" } }] }, { text: "Stamped kiwi." }],
};

let project: string;
beforeAll(() => {
  project = tempDataDir("runlog-user-project");
  writeFileSync(join(project, "agents.ts"), AGENTS);
  writeFileSync(join(project, "script.json"), JSON.stringify(SCRIPT));
  writeFileSync(join(project, "own-model.ts"), OWN_MODEL);
  writeFileSync(
    join(project, "bad-models.ts"),
    "export const agents = { a: () => ({}) };\nexport const models = { openai: () => ({}) };\n",
  );
  writeFileSync(join(project, "not-agents.ts"), "export const something = 1;\n");
  writeFileSync(join(project, "bad-agents.ts"), "export const agents = { broken: 42 };\n");
});

describe("runlog --agents MODULE", () => {
  it("runs a user's own agent from a TypeScript module, and its tool does its work", async () => {
    const dir = tempDataDir();
    const agents = join(project, "agents.ts");
    const { code, json, stderr } = await runlogJson(dir, [
      "run",
      "--agents",
      agents,
      "--agent",
      "stamper",
      "go",
    ]);
    expect(stderr).not.toMatch(/runlog:/);
    expect(code).toBe(0);
    expect(json).toMatchObject({ status: "completed", output: "Stamped kiwi." });
    expect(readFileSync(join(dir, "stamps.txt"), "utf8")).toBe("kiwi\n");
  });

  it("takes the module from RUNLOG_AGENTS, so later commands find the run's agent", async () => {
    const dir = tempDataDir();
    const env = { RUNLOG_AGENTS: join(project, "agents.ts") };
    const run = await runlogJson(dir, ["run", "--agent", "stamper", "--run-id", "s1", "go"], env);
    expect(run.code).toBe(0);
    const fork = await runlogJson(dir, ["fork", "s1", "--at", "2", "--id", "s2"], env);
    expect(fork.json).toMatchObject({ runId: "s2", status: "completed" });
    expect(readFileSync(join(dir, "stamps.txt"), "utf8")).toBe("kiwi\nkiwi\n");
  });

  it("runs an agent on the module's own model, and names the known prefixes for an unknown one", async () => {
    const dir = tempDataDir();
    const module = join(project, "own-model.ts");
    const run = await runlogJson(dir, ["run", "--agents", module, "--agent", "echoer", "hello"]);
    expect(run.stderr).not.toMatch(/runlog:/);
    expect(run.json).toMatchObject({ status: "completed", output: "loud: HELLO" });
    const other = await runlog(dir, [
      "run",
      "--agents",
      module,
      "--agent",
      "echoer",
      "--model",
      "quiet:x",
      "hi",
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /unknown model "quiet:x": .*known prefixes are scripted:, openai:, bedrock:, upper:/,
    );
  });

  it("names the unknown agent and the ones the module has", async () => {
    const result = await runlog(tempDataDir(), ["run", "--agents", join(project, "agents.ts"), "go"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown agent "demo"; known agents: stamper/);
  });

  it.each([
    ["a missing file", "nowhere.ts", /is not a file/],
    ["a module without agents", "not-agents.ts", /must export `agents`/],
    ["an agent that is not one", "bad-agents.ts", /agents\.broken .* is not an agent/],
    ["models taking a built-in prefix", "bad-models.ts", /models\.openai: openai: is built in/],
  ])("refuses %s with exit 2, writing nothing", async (_, file, message) => {
    const dir = tempDataDir();
    const result = await runlog(dir, ["run", "--agents", join(project, file), "--run-id", "x", "go"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.match(/runlog:/g)).toHaveLength(1);
    const ls = await runlogJson(dir, ["ls"]);
    expect(ls.json).toEqual({ runs: [] });
  });
});
