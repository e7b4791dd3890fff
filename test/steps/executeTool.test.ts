import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { defineTool } from "../../lib/agents/defineTool.ts";
import { stoppedToolResult } from "../../lib/core/messages.ts";
import { MAX_TOOL_RESULT_BYTES, runWithTimeout } from "../../lib/steps/executeTool.ts";

const echo = defineTool({
  name: "echo",
  description: "Echo.",
  parameters: z.object({ n: z.number() }),
  run: ({ n }) => String(n),
});

describe("runWithTimeout", () => {
  it("leaves no listener on the execution's signal once a call is done, however many ran", async () => {
    // One execution's signal outlives hundreds of tool calls: a listener per call would pile up.
    const execution = new AbortController();
    for (let n = 0; n < 50; n++) {
      const outcome = await runWithTimeout(
        echo as never,
        { n },
        { runId: "r", callId: `c${n}` },
        execution.signal,
      );
      expect(outcome).toEqual({ content: String(n), isError: false });
    }
    expect(getEventListeners(execution.signal, "abort")).toHaveLength(0);
  });

  it("still aborts a call under way when the execution stops", async () => {
    const execution = new AbortController();
    const slow = defineTool({
      name: "slow",
      description: "Waits for its signal.",
      parameters: z.object({}),
      run: (_, { signal }) =>
        new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const call = runWithTimeout(slow as never, {}, { runId: "r", callId: "c" }, execution.signal);
    execution.abort(new Error("cancelled"));
    // Asked to stop is not known to have stopped: worded as an interruption is.
    expect(await call).toEqual({ content: stoppedToolResult("slow", "cancelled"), isError: true });
    expect(getEventListeners(execution.signal, "abort")).toHaveLength(0);
  });
});

describe("what a tool returns, as the result the model reads", () => {
  const returning = (value: unknown) =>
    runWithTimeout(
      defineTool({
        name: "give",
        description: "Gives.",
        parameters: z.object({}),
        run: () => value,
      }) as never,
      {},
      { runId: "r", callId: "c" },
    );

  it.each([
    ["a function", () => 1, "give returned a function, which has no JSON text"],
    ["a symbol", Symbol("s"), "give returned a symbol (Symbol(s)), which has no JSON text"],
    [
      "an object whose toJSON gives nothing",
      { toJSON: () => undefined },
      "give returned a value, which has no JSON text",
    ],
    ["a BigInt", 10n, "give returned a BigInt that cannot be sent to the model as JSON"],
  ])(
    "%s is an error result naming what was returned, never a result without content",
    async (_l, value, told) => {
      const outcome = await returning(value);
      expect(outcome.isError).toBe(true);
      expect(outcome.content).toContain(told);
    },
  );

  it.each([
    ["text", "hi", "hi"],
    ["nothing", undefined, ""],
    ["null", null, "null"],
    ["an object", { a: [1, "b"] }, '{"a":[1,"b"]}'],
  ])("%s is a result", async (_l, value, content) => {
    expect(await returning(value)).toEqual({ content, isError: false });
  });
});

describe("a result no event can hold", () => {
  const returning = (value: unknown) =>
    defineTool({
      name: "dump",
      description: "Returns what it was built with.",
      parameters: z.object({}),
      run: () => value as string,
    });
  const run = (value: unknown) => runWithTimeout(returning(value) as never, {}, { runId: "r", callId: "c" });

  it("is the tool's error naming its size and the limit, text or JSON, so the step (and a retry) does not fail", async () => {
    const text = await run("x".repeat(MAX_TOOL_RESULT_BYTES + 1));
    expect(text.isError).toBe(true);
    expect(text.content).toBe(
      `dump returned ${MAX_TOOL_RESULT_BYTES + 3} bytes (as stored), over the ${MAX_TOOL_RESULT_BYTES} a tool result can hold; return less (a summary, a page of it, or where to find it)`,
    );
    // Escaping counts: a newline is 2 bytes as stored, and the JSON value's text is escaped again.
    const json = await run({ lines: "\n".repeat(MAX_TOOL_RESULT_BYTES / 2) });
    expect(json.isError).toBe(true);
    expect(json.content).toMatch(/^dump returned \d+ bytes \(as stored\), over the /);
  });

  it("up to the limit is the result as it is", async () => {
    const big = "y".repeat(MAX_TOOL_RESULT_BYTES - 2);
    expect(await run(big)).toEqual({ content: big, isError: false });
  });
});
