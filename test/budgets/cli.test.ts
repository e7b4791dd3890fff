import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { cleanup, events, ROOT, runlog, runlogJson, tempDataDir } from "../support/cli.ts";

// A user's agents module (TypeScript, outside the repository, importing the built package): an
// agent whose own model asks for a tool every turn, and the price of that model.
const runlogUrl = pathToFileURL(join(ROOT, "dist", "lib", "index.js")).href;
const zodUrl = pathToFileURL(join(ROOT, "node_modules", "zod", "index.js")).href;
const MODULE = `
import { defineAgent, defineTool } from "${runlogUrl}";
import { z } from "${zodUrl}";

export const agents = {
  looper: defineAgent({
    name: "looper",
    instructions: "Check again.",
    model: "loop:forever",
    limits: { maxTurns: 5 },
    tools: [defineTool({ name: "check", description: "Check.", parameters: z.object({}), run: () => "not yet" })],
  }),
};

export const models = {
  loop: (name: string) => ({
    spec: "loop:" + name,
    call: async (request: { turn: number }) => ({
      text: "",
      toolCalls: [{ id: "c" + request.turn, name: "check", arguments: "{}" }],
      stop: "tool_calls",
      usage: { inputTokens: 1000, outputTokens: 500 },
    }),
  }),
};

// $0.002 a turn: 1,000 input tokens at $1 a million, 500 output at $2.
export const prices = { "loop:forever": { inputUsdPerMillion: 1, outputUsdPerMillion: 2 } };
`;

const dir = tempDataDir("cli-budgets");
const modulePath = join(dir, "agents.ts");
writeFileSync(modulePath, MODULE);
afterAll(() => cleanup(dir));
const withAgents = (args: string[]) => [...args, "--agents", modulePath];

describe("runlog run and resume with limits", () => {
  it("stops at --max-turns, says how to go on, and resume --max-turns continues with the raise recorded", async () => {
    const run = await runlogJson(
      dir,
      withAgents(["run", "--agent", "looper", "--run-id", "loop", "--max-turns", "2", "go"]),
    );
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ runId: "loop", status: "budget_exhausted" });
    const text = await runlog(dir, withAgents(["resume", "loop"]));
    expect(text.stdout).toContain("budget_exhausted");

    const resumed = await runlogJson(dir, withAgents(["resume", "loop", "--max-turns", "4"]));
    expect(resumed.json).toMatchObject({ runId: "loop", status: "budget_exhausted" });
    const log = await events(dir, "loop");
    expect(log.filter((e) => e.type === "model_response")).toHaveLength(4);
    expect(log.find((e) => e.type === "resumed")).toMatchObject({ limits: { maxTurns: 4 } });
    expect(log.at(-1)).toMatchObject({ type: "budget_exhausted", used: { turns: 4 } });
  });

  it("stops at --max-cost-usd, priced by the agents module's prices", async () => {
    const run = await runlogJson(
      dir,
      withAgents(["run", "--agent", "looper", "--run-id", "cost", "--max-cost-usd", "0.005", "go"]),
    );
    expect(run.json).toMatchObject({ status: "budget_exhausted" });
    const last = (await events(dir, "cost")).at(-1);
    expect(last).toMatchObject({ type: "budget_exhausted", limit: "maxCostUsd", used: { turns: 3 } });
  });

  it("refuses a limit above the agent's (exit 2, naming it) and a flag that is not a number", async () => {
    const over = await runlog(dir, withAgents(["run", "--agent", "looper", "--max-turns", "6", "go"]));
    expect(over.code).toBe(2);
    expect(over.stderr).toContain("limits.maxTurns is 6, above the 5 the agent allows");
    const word = await runlog(dir, withAgents(["run", "--agent", "looper", "--max-tokens", "lots", "go"]));
    expect(word.code).toBe(2);
    expect(word.stderr).toContain("--max-tokens takes a whole number of tokens");
  });

  it("blames --max-cost-usd, not --model, for a cost limit on the agent's unpriced model", async () => {
    const unpriced = await runlog(dir, ["run", "--run-id", "unpriced", "--max-cost-usd", "1", "go"]);
    expect(unpriced.code).toBe(2);
    expect(unpriced.stderr).toMatch(/^runlog: --max-cost-usd: scripted:demo has no price/);
    const named = await runlog(dir, ["run", "--model", "scripted:demo", "--max-cost-usd", "1", "go"]);
    expect(named.stderr).toMatch(/^runlog: --model: scripted:demo has no price/);
  });
});
