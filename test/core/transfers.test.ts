import { describe, expect, it } from "vitest";
import { classify } from "../../lib/core/classify.ts";
import { readLog } from "../../lib/core/logReader.ts";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import { fromAnchor } from "../../lib/core/tail.ts";
import { transferredToolResult, transferTarget, transferToolName } from "../../lib/core/transfers.ts";
import { transferSpec } from "../../lib/core/transferTool.ts";
import { call, log } from "./logBuilder.ts";

const transferCall = (id: string) => call(id, "transfer_to_billing", '{"reason":"a refund"}');

describe("the agent in force, read from the log", () => {
  it("is run_started's agent until a transfer, then the transfer's target, with its model", () => {
    const before = log().start().callsOf(transferCall("t")).build();
    expect(readLog(before)).toMatchObject({ agent: "demo", model: "scripted:demo" });
    const after = log().start().callsOf(transferCall("t")).transferred("t").build();
    expect(readLog(after)).toMatchObject({ agent: "billing", model: "scripted:billing" });
  });

  it("answers the batch's other calls with the agent that asked for them", () => {
    const events = log().start().callsOf(transferCall("t"), call("a")).transferred("t").build();
    const facts = readLog(events);
    expect(facts.agent).toBe("billing");
    expect(facts.batch?.agent).toBe("demo");
  });

  it("stays the target's through later turns, and a second transfer moves it again", () => {
    const events = log()
      .start()
      .callsOf(transferCall("t"))
      .transferred("t")
      .respond("Refunded.")
      .user("back to the desk")
      .callsOf(call("u", "transfer_to_demo"))
      .transferred("u", "demo", "billing")
      .build();
    expect(readLog(events.slice(0, 4))).toMatchObject({ agent: "billing" });
    expect(readLog(events)).toMatchObject({ agent: "demo", transferred: { from: "billing", to: "demo" } });
  });

  it("counts the transfer as a step of the generation and not as a model turn", () => {
    const facts = readLog(log().start().callsOf(transferCall("t")).transferred("t").build());
    expect(facts).toMatchObject({ modelTurns: 1, generationSteps: 2 });
  });

  it("is known to a tail that starts at the anchor before the transfer", () => {
    const events = log().start().user().callsOf(transferCall("t")).transferred("t").build();
    const tail = fromAnchor(events.slice(2));
    expect(readLog(tail.events, tail.start).agent).toBe("billing");
    expect(classify(tail.events, tail.start).description).toContain("call the model as billing");
  });
});

describe("what the model reads of a transfer", () => {
  it("is the call's result, so every call of the response is answered", () => {
    const events = log().start().callsOf(transferCall("t")).transferred("t").build();
    expect(toMessages(events).at(-1)).toEqual({
      role: "tool",
      toolCallId: "t",
      name: "transfer_to_billing",
      content: transferredToolResult("billing"),
      isError: false,
    });
  });

  it("is offered as transfer_to_<name>, described by the target, with an optional reason", () => {
    const spec = transferSpec({ name: "billing", description: "Handles invoices and refunds." });
    expect(spec.name).toBe("transfer_to_billing");
    expect(spec.description).toContain("Handles invoices and refunds.");
    expect(spec.parameters).toMatchObject({ type: "object", properties: { reason: { type: "string" } } });
    expect((spec.parameters as { required?: string[] }).required ?? []).toEqual([]);
    expect(transferTarget(transferToolName("billing"))).toBe("billing");
    expect(transferTarget("transfer_to_")).toBeUndefined();
    expect(transferTarget("lookup")).toBeUndefined();
  });
});
