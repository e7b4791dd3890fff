import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type Template, type TurnCost, turnCost, turnStates } from "../../bench/src/cost/turnCost.ts";
import { turnItemBytes } from "../../bench/src/cost/turnItems.ts";
import { synthesizedMachine } from "./machine.ts";
import { synthesize } from "./synth.ts";

/**
 * docs/guides/deploy-to-aws.md prices one agent turn (one model call, one tool call). The bench
 * recomputes that price from the synthesized template (bench/src/cost, `npm run bench -- --only
 * cost`): the states the deployed definition enters, as Step Functions bills them (the Map and each
 * iteration's states included), the memory and architecture of the functions its tasks invoke, and
 * the write units of the items the DynamoDB adapter stores. The guide's table must say the same.
 */
const guide = readFileSync(
  join(import.meta.dirname, "..", "..", "docs", "guides", "deploy-to-aws.md"),
  "utf8",
);
const section = guide.slice(guide.indexOf("## What one agent turn costs"));
const rows = section
  .slice(0, section.indexOf("\n\n", section.indexOf("| part |")))
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| part") && !line.startsWith("| ---"));
const dollars = (cell: string) => Number(/\$([0-9.]+)/.exec(cell)![1]);
const lastCell = (line: string) => line.split("|").at(-2)!;

describe("the cost of a turn in docs/guides/deploy-to-aws.md", () => {
  const synthesized = synthesize();
  const template = synthesized.template.toJSON() as Template;
  let cost: TurnCost;
  beforeAll(async () => {
    cost = turnCost(template, await turnItemBytes());
  });

  it("counts the state transitions the deployed definition takes", () => {
    const states = synthesizedMachine(synthesized).definition.States;
    expect(cost.transitions).toEqual(["CallModel", "Route", "RunTools", "RunTool"]);
    const row = rows.find((line) => line.startsWith("| state transitions:"))!;
    expect(row).toContain(`${cost.transitions.join(", ")} |`);
    expect(row).toContain(`| ${cost.transitions.length} × $0.000025 |`);
    // Each further call of the same response is one more transition, its Map iteration's RunTool.
    expect(turnStates(states as never, 3)).toHaveLength(cost.transitions.length + 2);
  });

  it("states each part at the price the template and the stored items give", () => {
    const parts = rows.slice(0, -1);
    expect(parts).toHaveLength(cost.rows.length);
    for (const [i, line] of parts.entries()) {
      // The guide rounds to a tenth of a millionth of a dollar.
      expect(Math.abs(dollars(lastCell(line)) - cost.rows[i]!.dollars), line).toBeLessThan(0.00000006);
    }
    expect(rows.find((line) => line.startsWith("| DynamoDB writes:"))).toContain(
      `≈ ${cost.writeUnits.reduce((a, b) => a + b, 0)} write units`,
    );
  });

  it("adds its parts up to the total it states", () => {
    const [total, ...parts] = [rows.at(-1)!, ...rows.slice(0, -1)];
    const sum = parts.reduce((acc, line) => acc + dollars(lastCell(line)), 0);
    const stated = dollars(total);
    expect(Math.abs(sum - stated) / stated).toBeLessThan(0.01);
    expect(Math.abs(cost.dollars - stated) / stated).toBeLessThan(0.01);
  });
});
