import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  agentAsTool,
  defineAgent,
  defineTool,
  InvalidInputError,
  type Model,
  type ModelRequest,
  openLocal,
} from "../../lib/index.ts";
import type { ExecutionReport } from "../../lib/ports/runtime.ts";
import { cleanup, tempDataDir } from "../support/cli.ts";

/** A model that asks for three tools in one response, then answers with what they said. */
const threeCalls: Model = {
  spec: "mine:three",
  async call(request: ModelRequest) {
    const results = request.messages.filter((m) => m.role === "tool");
    if (results.length > 0)
      return { text: results.map((m) => m.content).join(" "), toolCalls: [], stop: "stop" };
    return {
      text: "",
      toolCalls: ["issue_refund", "lookup", "send_email"].map((name, i) => ({
        id: `c${i}`,
        name,
        arguments: "{}",
      })),
      stop: "tool_calls",
    };
  },
};

const tool = (name: string) =>
  defineTool({ name, description: name, parameters: z.object({}), run: () => `${name}:ok` });
const clerk = defineAgent({
  name: "clerk",
  instructions: "Do it.",
  model: "mine:three",
  tools: [tool("issue_refund"), tool("lookup"), tool("send_email")],
});

describe("openLocal with toolGroups", () => {
  it("runs each call through its group's Task, ungrouped ones through RunTool, and completes", async () => {
    const dir = tempDataDir("tool-groups");
    const executions: ExecutionReport[] = [];
    const local = await openLocal({
      dataDir: dir,
      agents: { clerk },
      models: { mine: () => threeCalls },
      toolGroups: { payments: ["issue_refund"], mail: ["send_email"] },
      observer: { appended: () => {}, executionEnded: (report) => executions.push(report) },
    });
    try {
      const result = await local.runlog.start({ agent: "clerk", input: "go" });
      expect(result).toMatchObject({
        status: "completed",
        output: "issue_refund:ok lookup:ok send_email:ok",
      });
      expect(executions).toHaveLength(1);
      expect(executions[0]!.tasks).toMatchObject({ RunToolPayments: 1, RunToolMail: 1, RunTool: 1 });
    } finally {
      await local.close();
      cleanup(dir);
    }
  });

  it("runs every call through RunTool without groups", async () => {
    const dir = tempDataDir("no-tool-groups");
    const executions: ExecutionReport[] = [];
    const local = await openLocal({
      dataDir: dir,
      agents: { clerk },
      models: { mine: () => threeCalls },
      observer: { appended: () => {}, executionEnded: (report) => executions.push(report) },
    });
    try {
      await local.runlog.start({ agent: "clerk", input: "go" });
      expect(executions[0]!.tasks).toMatchObject({ RunTool: 3 });
      expect(Object.keys(executions[0]!.tasks!).filter((t) => t.startsWith("RunTool"))).toEqual(["RunTool"]);
    } finally {
      await local.close();
      cleanup(dir);
    }
  });

  it.each([
    ["a tool no agent has", ["issue_refnd"], "names issue_refnd, a tool no agent has"],
    ["a tool of a sub-agent's", ["lookup"], undefined],
  ])("opens with a group naming %s only when an agent has it", async (_, tools, refused) => {
    const dir = tempDataDir("unknown-group-tool");
    const helper = defineAgent({
      name: "helper",
      instructions: "Help.",
      model: "mine:three",
      tools: [tool("lookup")],
    });
    const boss = defineAgent({
      name: "boss",
      instructions: "Ask.",
      model: "mine:three",
      tools: [agentAsTool(helper, { name: "ask_helper", description: "Ask the helper" })],
    });
    try {
      const opening = openLocal({ dataDir: dir, agents: { boss }, toolGroups: { payments: tools } });
      if (refused === undefined) {
        await (await opening).close();
        return;
      }
      await expect(opening).rejects.toBeInstanceOf(InvalidInputError);
      await expect(opening).rejects.toMatchObject({
        field: "toolGroups.payments.tools",
        message: expect.stringContaining(refused),
      });
    } finally {
      cleanup(dir);
    }
  });

  it("refuses groups that name a tool twice, before opening anything", async () => {
    const dir = tempDataDir("bad-tool-groups");
    try {
      const opening = openLocal({ dataDir: dir, toolGroups: { a: ["x"], b: ["x"] } });
      await expect(opening).rejects.toBeInstanceOf(InvalidInputError);
      await expect(opening).rejects.toMatchObject({ field: "toolGroups.b.tools" });
    } finally {
      cleanup(dir);
    }
  });
});
