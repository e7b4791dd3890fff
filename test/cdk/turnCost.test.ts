import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type State, synthesizedMachine } from "./machine.ts";
import { synthesize } from "./synth.ts";

/**
 * docs/guides/deploy-to-aws.md prices one agent turn (one model call, one tool call) from the state transitions it
 * takes. Counted here on the deployed definition, as Step Functions bills them: every state
 * entered, the Map and each of its iterations' states included.
 */
/** The states one turn enters, from CallModel answering `tools` with `calls` calls until the next CallModel. */
function turnStates(states: Record<string, State>, calls: number): string[] {
  const entered: string[] = [];
  for (let name = "CallModel"; ; ) {
    const state = states[name]!;
    entered.push(name);
    let next: string | undefined;
    if (state.Type === "Choice") next = state.Choices!.find((c) => c.StringEquals === "tools")!.Next;
    else if (state.Type === "Map") {
      const inner = state.ItemProcessor!;
      for (let call = 0; call < calls; call++) entered.push(...iteration(inner.States, inner.StartAt));
      next = state.Next;
    } else next = state.Next;
    if (next === "CallModel" || next === undefined) return entered;
    name = next;
  }
}

function iteration(states: Record<string, State>, start: string): string[] {
  const entered: string[] = [];
  for (let name: string | undefined = start; name !== undefined; name = states[name]!.Next) {
    entered.push(name);
    if (states[name]!.End) break;
  }
  return entered;
}

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

describe("the cost of a turn in docs/guides/deploy-to-aws.md", () => {
  const states = synthesizedMachine(synthesize()).definition.States;

  it("counts the state transitions the deployed definition takes", () => {
    const entered = turnStates(states, 1);
    expect(entered).toEqual(["CallModel", "Route", "RunTools", "RunTool"]);
    const row = rows.find((line) => line.startsWith("| state transitions:"))!;
    expect(row).toContain(`${entered.join(", ")} |`);
    expect(row).toContain(`| ${entered.length} × $0.000025 |`);
    // Each further call of the same response is one more transition, its Map iteration's RunTool.
    expect(turnStates(states, 3)).toHaveLength(entered.length + 2);
  });

  it("adds its parts up to the total it states", () => {
    const [total, ...parts] = [rows.at(-1)!, ...rows.slice(0, -1)];
    const sum = parts.reduce((acc, line) => acc + dollars(line.split("|").at(-2)!), 0);
    const stated = dollars(total);
    expect(Math.abs(sum - stated) / stated).toBeLessThan(0.01);
  });
});
