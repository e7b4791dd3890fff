import { errorMessage, McpUnavailableError } from "../core/errors.ts";
import type { ToolCall } from "../core/eventFields.ts";
import { stoppedToolResult, timedOutToolResult } from "../core/messages.ts";
import { issuesText } from "../core/structuredOutput.ts";
import { jsonBytes } from "../core/utf8.ts";
import { WITHOUT_JIT } from "../core/withoutJit.ts";
import { MAX_EVENT_BYTES } from "../ports/eventStore.ts";
import type { Agent, Tool } from "../ports/tool.ts";

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

/** What running a tool came to, and whether that run repeats one that had started before (an idempotent tool's re-run). */
export interface ToolRun extends ToolOutcome {
  rerun?: boolean;
}

/** Thrown by a tool whose own answer is an error: its message is the call's result as it is (not "NAME failed: …"). */
export class ToolErrorResult extends Error {
  override name = "ToolErrorResult";
}

/** Find the tool a call names; undefined when the agent has no such tool. */
export function findTool(agent: Agent, name: string): Tool<unknown> | undefined {
  return agent.tools.find((tool) => tool.name === name);
}

/**
 * Check a call's arguments against the tool's schema. Returns the parsed
 * arguments, or an error result naming the problem for the model to read.
 */
export function parseArguments(
  tool: Tool<unknown>,
  call: ToolCall,
): { args: unknown } | { error: ToolOutcome } {
  let raw: unknown;
  try {
    raw = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return { error: fail(`arguments for ${tool.name} are not valid JSON: ${errorMessage(error)}`) };
  }
  const parsed = tool.parameters.safeParse(raw, WITHOUT_JIT);
  if (parsed.success) return { args: parsed.data };
  return {
    error: fail(`invalid arguments for ${tool.name}: ${issuesText(parsed.error.issues, "arguments")}`),
  };
}

/**
 * Run a tool under its timeout. A throw or a timeout becomes an error result; the run goes on,
 * except for McpUnavailableError (a server that cannot be reached), which fails the step.
 * Aborting is only a request: a tool that passed its timeout, or failed after its execution was
 * stopped, may still have done (or still be doing) its work, so the model is told so, in the words
 * it is told an interrupted call with (lib/core/messages.ts).
 */
export async function runWithTimeout(
  tool: Tool<unknown>,
  args: unknown,
  context: { runId: string; callId: string },
  stopped?: AbortSignal,
): Promise<ToolOutcome> {
  const controller = new AbortController();
  // A stopped execution (a cancel) aborts the tool too; its result is then never written.
  // Removed when the call ends: the execution's signal outlives every call it makes.
  const stop = () => controller.abort(stopped?.reason);
  stopped?.addEventListener("abort", stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ToolOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${tool.timeoutMs} ms`));
      resolve(fail(timedOutToolResult(tool.name, tool.timeoutMs)));
    }, tool.timeoutMs);
  });
  const run = (async (): Promise<ToolOutcome> => {
    try {
      return {
        content: render(tool.name, await tool.run(args, { ...context, signal: controller.signal })),
        isError: false,
      };
    } catch (error) {
      // The server could not be reached mid-call: not the tool's answer. The step fails and is
      // retried, and the call that started is answered as interrupted (or run again if idempotent).
      if (error instanceof McpUnavailableError) throw error;
      if (error instanceof ToolErrorResult) return fail(error.message);
      // Failing after the execution asked it to stop is no proof that it did nothing.
      if (stopped?.aborted) return fail(stoppedToolResult(tool.name, errorMessage(stopped.reason)));
      return fail(`${tool.name} failed: ${errorMessage(error)}`);
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    stopped?.removeEventListener("abort", stop);
  }
}

/**
 * What a tool returned, as the result the model reads: text as it is, nothing (undefined) as "",
 * anything else as JSON. A value with no JSON text (a function, a symbol, a BigInt, a cycle) is the
 * tool's error, named, never a result without content.
 */
function render(name: string, value: unknown): string {
  if (typeof value === "string") return fitting(name, value);
  if (value === undefined) return "";
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new ToolErrorResult(
      `${name} returned ${kindOf(value)} that cannot be sent to the model as JSON: ${errorMessage(error)}; return text or a JSON value`,
    );
  }
  if (json === undefined) {
    throw new ToolErrorResult(
      `${name} returned ${kindOf(value)}, which has no JSON text; return text or a JSON value`,
    );
  }
  return fitting(name, json);
}

/** Room in a `tool_result` event for what is not the content (its call id, name, seq, time). */
const EVENT_FIELDS_BYTES = 64 * 1024;
/** The most bytes of content a `tool_result` event holds, as stored (JSON-escaped, UTF-8). */
export const MAX_TOOL_RESULT_BYTES = MAX_EVENT_BYTES - EVENT_FIELDS_BYTES;

/**
 * Content the log can hold, else the tool's error naming its size and the limit: a result no event
 * can store would fail the step, and an idempotent tool's every retry with it. Measured as stored
 * only when it could be over (escaping takes a character to 6 bytes at most).
 */
function fitting(name: string, content: string): string {
  if (content.length * 6 <= MAX_TOOL_RESULT_BYTES) return content;
  const bytes = jsonBytes(content);
  if (bytes <= MAX_TOOL_RESULT_BYTES) return content;
  throw new ToolErrorResult(
    `${name} returned ${bytes} bytes (as stored), over the ${MAX_TOOL_RESULT_BYTES} a tool result can hold; ` +
      "return less (a summary, a page of it, or where to find it)",
  );
}

function kindOf(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return `a symbol (${value.toString()})`;
  if (typeof value === "bigint") return "a BigInt";
  return "a value";
}

const fail = (content: string): ToolOutcome => ({ content, isError: true });
