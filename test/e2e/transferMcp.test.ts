import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  defineAgent,
  type Model,
  type ModelReply,
  type ModelRequest,
  type RunEvent,
} from "../../lib/index.ts";
import { createTestRunlog, type TestRunlog } from "../../lib/testing/index.ts";
import { storeEnv, tempDataDir, testEnv } from "../support/cli.ts";
import { spyModel } from "../support/spyModel.ts";

// An agent's MCP tools follow the agent: a transfer records the target's (listed from its servers
// when the run is transferred), and from then on those are the run's; the first agent's go with it.

const FIXTURE = join(import.meta.dirname, "fixtures", "mcpServer.mjs");

const call = (id: string, name: string, args: unknown): ModelReply => ({
  text: "",
  toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
  stop: "tool_calls",
});
const answer = (text: string): ModelReply => ({ text, toolCalls: [], stop: "stop" });
const offered = (request: ModelRequest | undefined) => request?.tools.map((tool) => tool.name);
const resultOf = (log: readonly RunEvent[], callId: string) =>
  log.find((e) => (e.type === "tool_result" || e.type === "transferred") && e.callId === callId);

const dirs: string[] = [];
let opened: TestRunlog | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A `shop` MCP server serving `tools`, over stdio; its calls are appended to the returned file. */
function shopServer(tools: string) {
  const dir = tempDataDir("transfer-mcp");
  dirs.push(dir);
  const toolsFile = join(dir, "tools.txt");
  const seenFile = join(dir, "seen.jsonl");
  writeFileSync(toolsFile, tools);
  writeFileSync(seenFile, "");
  return {
    dir,
    seenFile,
    server: { name: "shop", command: process.execPath, args: [FIXTURE, toolsFile, seenFile] },
  };
}

async function open(dir: string, agents: Parameters<typeof createTestRunlog>[0]["agents"], model: Model) {
  opened = await createTestRunlog({
    agents,
    dataDir: join(dir, "data"),
    env: testEnv(storeEnv(join(dir, "data"))),
    models: { spy: () => model },
  });
  return opened;
}

describe("MCP tools across a transfer", () => {
  it("a transfer to an agent with an MCP server records its tools; the run calls them from then on", async () => {
    const shop = shopServer("lookup");
    const orders = defineAgent({
      name: "orders",
      description: "Knows every order.",
      instructions: "You are orders.",
      model: "spy:turns",
      mcp: [shop.server],
    });
    const triage = defineAgent({
      name: "triage",
      instructions: "You are triage.",
      model: "spy:turns",
      handoffs: [orders],
    });
    const requests: ModelRequest[] = [];
    const turns = [
      call("c1", "transfer_to_orders", { reason: "an order question" }),
      call("c2", "shop__lookup", { id: "A1" }),
      answer("A1 has shipped."),
    ];
    const local = await open(shop.dir, { triage, orders }, spyModel(turns, requests));
    const run = await local.runlog.start({ agent: "triage", input: "Where is A1?" });
    expect(run).toMatchObject({ status: "completed", output: "A1 has shipped." });

    const log = await local.events(run.runId);
    expect(log[0]).not.toHaveProperty("mcpTools");
    expect(resultOf(log, "c1")).toMatchObject({
      type: "transferred",
      to: "orders",
      mcpTools: [expect.objectContaining({ name: "shop__lookup", server: "shop", tool: "lookup" })],
    });
    // Triage was offered no MCP tool; orders, once in charge, its server's.
    expect(offered(requests[0])).toEqual(["transfer_to_orders"]);
    expect(offered(requests[1])).toEqual(["shop__lookup"]);
    expect(resultOf(log, "c2")).toMatchObject({ content: "order A1: shipped", isError: false });
    const seen = readFileSync(shop.seenFile, "utf8").trim().split("\n");
    expect(seen).toHaveLength(1);
  });

  it("a transfer away from an agent with an MCP server leaves its tools behind", async () => {
    const shop = shopServer("lookup");
    const writer = defineAgent({
      name: "writer",
      description: "Writes the reply.",
      instructions: "You are writer.",
      model: "spy:turns",
    });
    const orders = defineAgent({
      name: "orders",
      instructions: "You are orders.",
      model: "spy:turns",
      mcp: [shop.server],
      handoffs: [writer],
    });
    const requests: ModelRequest[] = [];
    const turns = [
      call("c1", "transfer_to_writer", {}),
      // The writer's model asks for a tool that was orders', not its own.
      call("c2", "shop__lookup", { id: "A1" }),
      answer("Done."),
    ];
    const local = await open(shop.dir, { orders, writer }, spyModel(turns, requests));
    const run = await local.runlog.start({ agent: "orders", input: "Reply about A1" });
    expect(run).toMatchObject({ status: "completed", output: "Done." });

    const log = await local.events(run.runId);
    expect(log[0]).toMatchObject({ mcpTools: [expect.objectContaining({ name: "shop__lookup" })] });
    expect(resultOf(log, "c1")).not.toHaveProperty("mcpTools");
    expect(offered(requests[0])).toEqual(["shop__lookup", "transfer_to_writer"]);
    expect(offered(requests[1])).toEqual([]);
    expect(resultOf(log, "c2")).toMatchObject({
      isError: true,
      content: expect.stringContaining("unknown tool shop__lookup"),
    });
    expect(readFileSync(shop.seenFile, "utf8")).toBe("");
  });
});
