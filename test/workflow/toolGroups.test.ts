import { StateMachine } from "aws-local-stepfunctions";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../lib/core/errors.ts";
import {
  configuredDefinition,
  renderDefinition,
  TASKS,
  type TaskName,
} from "../../lib/workflow/definition.ts";
import { checkToolGroups, groupTaskName } from "../../lib/workflow/toolGroups.ts";

const ARNS = Object.fromEntries(
  Object.keys(TASKS).map((t) => [t, `arn:aws:lambda:us-east-1:1:function:${t}`]),
) as Record<TaskName, string>;
const GROUP_ARNS = {
  payments: "arn:aws:lambda:us-east-1:1:function:payments",
  mail: "arn:aws:lambda:us-east-1:1:function:mail",
};
const GROUPS = {
  payments: { tools: ["issue_refund", "charge_card"] },
  mail: { tools: ["send_email"], timeoutSeconds: 120 },
};

type Input = Record<string, unknown>;

/** Run the grouped definition: CallModel answers `answers` in turn, each tool Task records what it ran. */
async function run(next: unknown, answers: unknown[]) {
  const ran: { state: string; callId: unknown; tool: unknown }[] = [];
  const tasks: string[] = [];
  const definition = renderDefinition(ARNS, { toolGroups: GROUPS }, GROUP_ARNS);
  const tool = (state: string) => async (input: Input) => {
    tasks.push(state);
    ran.push({ state, callId: input.callId, tool: input.tool });
    return { callId: input.callId, isError: false };
  };
  const handlers = {
    CallModel: async () => {
      tasks.push("CallModel");
      return answers.shift() ?? { action: "done" };
    },
    Finish: async () => {
      tasks.push("Finish");
      return { status: "completed" };
    },
    RunTool: tool("RunTool"),
    [groupTaskName("payments")]: tool("RunToolPayments"),
    [groupTaskName("mail")]: tool("RunToolMail"),
  };
  const machine = new StateMachine(definition as never, { validationOptions: { checkArn: false } });
  const execution = machine.run({ runId: "r", generation: 1, next, owner: "o" } as never, {
    context: { StateMachine: { Id: "arn:aws:states:us-east-1:1:stateMachine:runs", Name: "runs" } },
    overrides: { taskResourceLocalHandlers: handlers as never },
  });
  await execution.result;
  return { ran, tasks };
}

describe("a definition with tool groups", () => {
  it("is the definition without them when none are given", () => {
    expect(configuredDefinition({ toolGroups: {} })).toEqual(configuredDefinition());
    expect(JSON.stringify(configuredDefinition())).not.toContain("RouteTool");
  });

  it("routes each call to its group's Task and ungrouped calls to RunTool, with the batch intact", async () => {
    const next = {
      action: "tools",
      callIds: ["a", "b", "c", "d"],
      tools: ["issue_refund", "lookup", "send_email", "charge_card"],
    };
    const { ran, tasks } = await run(next, []);
    expect(ran.sort((x, y) => String(x.callId).localeCompare(String(y.callId)))).toEqual([
      { state: "RunToolPayments", callId: "a", tool: "issue_refund" },
      { state: "RunTool", callId: "b", tool: "lookup" },
      { state: "RunToolMail", callId: "c", tool: "send_email" },
      { state: "RunToolPayments", callId: "d", tool: "charge_card" },
    ]);
    expect(tasks.slice(-2)).toEqual(["CallModel", "Finish"]);
  });

  it("asks CallModel again for a tools `next` without tool names, and runs the calls it names", async () => {
    const { ran, tasks } = await run({ action: "tools", callIds: ["a"] }, [
      { action: "tools", callIds: ["a"], tools: ["issue_refund"] },
    ]);
    expect(tasks[0]).toBe("CallModel");
    expect(ran).toEqual([{ state: "RunToolPayments", callId: "a", tool: "issue_refund" }]);
  });

  it("gives each group's Task its function's ARN and timeout, and RunTool's retries", () => {
    const definition = renderDefinition(ARNS, { toolGroups: GROUPS }, GROUP_ARNS) as {
      States: { RunTools: { ItemProcessor: { StartAt: string; States: Record<string, Input> } } };
    };
    const { StartAt, States } = definition.States.RunTools.ItemProcessor;
    expect(StartAt).toBe("RouteTool");
    expect(States.RunToolMail!.Resource).toBe(GROUP_ARNS.mail);
    expect(States.RunToolMail!.TimeoutSeconds).toBe(180);
    expect(States.RunToolPayments!.TimeoutSeconds).toBe(States.RunTool!.TimeoutSeconds);
    expect(States.RunToolPayments!.Retry).toEqual(States.RunTool!.Retry);
  });

  it("cannot be rendered without each group's function", () => {
    expect(() => renderDefinition(ARNS, { toolGroups: GROUPS }, { payments: "x" })).toThrow(/mail/);
  });
});

describe("checkToolGroups", () => {
  it.each([
    ["a tool in two groups", { a: ["x"], b: ["y", "x"] }, "toolGroups.b.tools", /group a too/],
    ["a tool twice in one group", { a: ["x", "x"] }, "toolGroups.a.tools", /names x twice$/],
    ["a group of null", { a: null }, "toolGroups.a.tools", /array of tool names, got null$/],
    ["an empty group", { a: [] }, "toolGroups.a.tools", /at least one tool/],
    ["a bad group name", { "pay-ments": ["x"] }, "toolGroups.pay-ments", /not a group name/],
    ["the default's name", { default: ["x"] }, "toolGroups.default", /default RunTool/],
    ["RunTool's own name", { runTool: ["x"] }, "toolGroups.runTool", /default RunTool/],
    ["two names for one function", { pay: ["x"], Pay: ["y"] }, "toolGroups.Pay", /same function/],
    ["a tool that is no name", { a: [""] }, "toolGroups.a.tools", /tool names/],
    ["not an object", ["x"], "toolGroups", /object of groups/],
    [
      "a tool name where the array goes",
      { payments: "issue_refund" },
      "toolGroups.payments.tools",
      /must be an array of tool names, got "issue_refund" \(a string\)/,
    ],
  ])("refuses %s, naming where", (_, groups, field, message) => {
    let caught: unknown;
    try {
      checkToolGroups(groups);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as InvalidInputError).field).toBe(field);
    expect((caught as Error).message).toMatch(message);
  });

  it("refuses, given the agents' tools, a group naming a tool no agent has", () => {
    const known = { has: (tool: string) => tool === "issue_refund", names: ["issue_refund"] };
    expect(() => checkToolGroups({ payments: ["issue_refnd"] }, "toolGroups", known)).toThrow(
      expect.objectContaining({
        field: "toolGroups.payments.tools",
        message: expect.stringContaining("names issue_refnd, a tool no agent has"),
      }),
    );
    expect(checkToolGroups({ payments: ["issue_refund"] }, "toolGroups", known)).toBeDefined();
  });

  it("accepts well-formed groups", () => {
    expect(checkToolGroups({ payments: ["issue_refund"], mail: ["send_email"] })).toBeDefined();
  });
});
