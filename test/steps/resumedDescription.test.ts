import { describe, expect, it } from "vitest";
import type { NewEvent } from "../../lib/core/events.ts";
import type { Tool } from "../../lib/ports/tool.ts";
import type { ControlDeps } from "../../lib/steps/deps.ts";
import { forkRun } from "../../lib/steps/fork.ts";
import { resumeRun } from "../../lib/steps/resume.ts";
import { type World, world } from "./generation/harness.ts";

// The `resumed` event says what the resume does: the interrupted call of an idempotent tool runs
// again, and only the other one is answered as interrupted (as resume-point says before it).

const R = "r";
const tool = (name: string, idempotent: boolean): Tool =>
  ({ name, description: name, parameters: {}, idempotent, run: async () => "" }) as unknown as Tool;
const batch: NewEvent[] = [
  {
    type: "model_response",
    text: "",
    toolCalls: [
      { id: "a", name: "read_page", arguments: "{}" },
      { id: "b", name: "send_email", arguments: "{}" },
    ],
    stop: "tool_calls",
  },
  { type: "tool_started", callId: "a", name: "read_page" },
  { type: "tool_started", callId: "b", name: "send_email" },
];
const withTools = (w: World): ControlDeps => ({
  ...w.process(),
  agents: (name) => ({
    name,
    instructions: "",
    tools: [tool("read_page", true), tool("send_email", false)],
    defaultModel: "scripted:test",
  }),
});
const DESCRIPTION =
  "tool calls started and have no result: run read_page (a) again (the tool is idempotent); answer send_email (b) as interrupted, then continue";

describe("the resumed event of a batch cut short", () => {
  it("says the idempotent call runs again, on a resume", async () => {
    const w = world();
    await w.seed(R, batch);
    await resumeRun(withTools(w), { runId: R });
    expect((await w.log(R)).at(-1)).toMatchObject({
      type: "resumed",
      kind: "recover_tools",
      description: DESCRIPTION,
    });
  });

  it("and on a fork that goes on from there", async () => {
    const w = world();
    await w.seed(R, batch);
    await forkRun({ ...withTools(w), ids: { runId: () => "f" } }, { runId: R });
    expect((await w.log("f")).at(-1)).toMatchObject({
      type: "resumed",
      kind: "recover_tools",
      description: DESCRIPTION,
    });
  });
});
