import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentAsTool } from "../../lib/agents/agentAsTool.ts";
import { defineAgent } from "../../lib/agents/defineAgent.ts";
import { type AgentFactory, agentRegistry } from "../../lib/agents/registry.ts";
import { openLocal } from "../../lib/api/local.ts";
import { InvalidInputError } from "../../lib/core/errors.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";
import { thrownBy } from "../support/thrown.ts";

const context = { dataDir: "" };

const agent = (name: string, instructions: string, tools: ReturnType<typeof agentAsTool>[] = []) =>
  defineAgent({ name, instructions, model: "scripted:demo", tools });

const asTool = (factory: AgentFactory, name: string) =>
  agentAsTool(factory, { name, description: `ask ${name}` });

describe("an agent registry with two different agents of one name", () => {
  it("refuses two sub-agents of one name in two parents, naming where each is", () => {
    const first = agent("summarizer", "Summarize in French.");
    const second = agent("summarizer", "Summarize in English.");
    const factories = {
      a: agent("a", "", [asTool(first, "summarize_fr")]),
      b: agent("b", "", [asTool(second, "summarize_en")]),
    };
    const error = thrownBy(() => agentRegistry(context, factories));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "agents.summarizer" });
    const message = (error as Error).message;
    expect(message).toContain('"summarizer"');
    expect(message).toContain('the sub-agent of "a" through its tool "summarize_fr"');
    expect(message).toContain('the sub-agent of "b" through its tool "summarize_en"');
  });

  it("refuses a sub-agent named like its registered parent", () => {
    const child = agent("parent", "I am the child.");
    const error = thrownBy(() =>
      agentRegistry(context, { parent: agent("parent", "", [asTool(child, "ask")]) }),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain('the agent registered as "parent"');
    expect((error as Error).message).toContain('the sub-agent of "parent" through its tool "ask"');
  });

  it("refuses a sub-agent named like another registered agent, however deep", () => {
    const registered = agent("writer", "Registered.");
    const deep = agent("writer", "Deep.");
    const middle = agent("middle", "", [asTool(deep, "write")]);
    const error = thrownBy(() =>
      agentRegistry(context, { top: agent("top", "", [asTool(middle, "delegate")]), writer: registered }),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toContain('the sub-agent of "middle" through its tool "write"');
  });

  it("refuses a handoff given as an agent that is not the one registered under its name", () => {
    const billing = agent("billing", "Registered billing.");
    const other = agent("billing", "Another billing.");
    const triage = defineAgent({
      name: "triage",
      instructions: "",
      model: "scripted:demo",
      handoffs: [other],
    });
    const error = thrownBy(() => agentRegistry(context, { triage, billing }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "handoffs" });
    expect((error as Error).message).toContain('"billing"');
  });

  it("is refused by openLocal before anything is opened", async () => {
    const dir = tempDataDir("registry");
    afterAll(() => cleanup(dir));
    const first = agent("summarizer", "one");
    const second = agent("summarizer", "two");
    await expect(
      openLocal({
        dataDir: join(dir, "data"),
        agents: { a: agent("a", "", [asTool(first, "s")]), b: agent("b", "", [asTool(second, "s")]) },
      }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    expect(existsSync(join(dir, "data"))).toBe(false);
  });
});

describe("an agent registry with one definition reached several ways", () => {
  it("serves each sub-agent as its own definition", () => {
    const summarizer = agent("summarizer", "Summarize.");
    const registry = agentRegistry(context, {
      a: agent("a", "", [asTool(summarizer, "s1")]),
      b: agent("b", "", [asTool(summarizer, "s2")]),
      summarizer,
    });
    expect(registry("summarizer").instructions).toBe("Summarize.");
    expect(registry("a").instructions).toBe("");
  });

  it("finds a sub-agent of a sub-agent", () => {
    const leaf = agent("leaf", "Leaf.");
    const registry = agentRegistry(context, {
      top: agent("top", "", [asTool(agent("mid", "", [asTool(leaf, "l")]), "m")]),
    });
    expect(registry("leaf").instructions).toBe("Leaf.");
  });

  it("takes a handoff given as the very agent registered", () => {
    const billing = agent("billing", "Billing.");
    const triage = defineAgent({
      name: "triage",
      instructions: "",
      model: "scripted:demo",
      handoffs: [billing],
    });
    expect(agentRegistry(context, { triage, billing })("triage").handoffs).toEqual(["billing"]);
  });
});

describe("defineAgent's factory", () => {
  it("is named after its agent, so { [agent.name]: agent } registers it", () => {
    const support = agent("support", "Help.");
    expect(support.name).toBe("support");
    expect(agentRegistry(context, { [support.name]: support })("support").name).toBe("support");
  });
});

describe("an agent registry's handoffs to agents reached as sub-agents", () => {
  const a = agent("a", "A.");

  it.each([
    ["by name", ["a"]],
    ["by definition", [a]],
  ])("takes a handoff %s to an agent registered only through agentAsTool, as start does", (_, handoffs) => {
    const d = defineAgent({
      name: "d",
      instructions: "",
      model: "scripted:demo",
      handoffs,
      tools: [asTool(a, "ask_a")],
    });
    const registry = agentRegistry(context, { d });
    expect(registry("d").handoffs).toEqual(["a"]);
    expect(registry("a").instructions).toBe("A.");
  });

  it("refuses a handoff given as another agent of the name a sub-agent has", () => {
    const d = defineAgent({
      name: "d",
      instructions: "",
      model: "scripted:demo",
      handoffs: [agent("a", "Another a.")],
      tools: [asTool(a, "ask_a")],
    });
    const error = thrownBy(() => agentRegistry(context, { d }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "handoffs" });
    expect((error as Error).message).toContain('two different agents are named "a"');
  });

  it("checks a sub-agent's own handoffs, listing every agent the registry knows", () => {
    const lost = defineAgent({
      name: "lost",
      instructions: "",
      model: "scripted:demo",
      handoffs: ["nowhere"],
    });
    const error = thrownBy(() => agentRegistry(context, { d: agent("d", "", [asTool(lost, "ask_lost")]) }));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: "handoffs" });
    expect((error as Error).message).toBe(
      'agent "lost": handoffs names unknown agent "nowhere"; known agents: d, lost',
    );
  });

  it("names the sub-agents among the known agents of an unknown name", () => {
    const registry = agentRegistry(context, { d: agent("d", "", [asTool(a, "ask_a")]) });
    expect(() => registry("b")).toThrow('unknown agent "b"; known agents: d, a');
  });
});
