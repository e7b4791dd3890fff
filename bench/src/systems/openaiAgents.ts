/**
 * The OpenAI Agents SDK JS with a fake model. Durability as its docs describe it: RunState is the
 * durable pause/resume boundary (human-in-the-loop). The tool needs approval, so every tool call
 * interrupts the run; the state (`result.state.toString()`) is written to a file and fsynced, the
 * call is approved, and `run(agent, state)` goes on: one saved state per turn.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  RunState,
  run as runAgent,
  setTracingDisabled,
  tool,
  Usage,
} from "@openai/agents";
import { z } from "zod";
import { gaps, maxRssKb, now, reportAndDie, writeDurably } from "../measure.ts";
import {
  type ChildReport,
  callId,
  FINAL_ANSWER,
  TOOL_NAME,
  toolArgs,
  toolResult,
  USER_INPUT,
} from "../workload.ts";

setTracingDisabled(true);
const MAX_TURNS = 1_000_000;

/** Turn k (the number of function calls already in the input) asks for page k, until `toolTurns`. */
class ScriptedModel implements Model {
  constructor(private readonly toolTurns: number) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const input = typeof request.input === "string" ? [] : (request.input as AgentInputItem[]);
    const turn = input.filter((item) => item.type === "function_call").length;
    const output: ModelResponse["output"] =
      turn >= this.toolTurns
        ? [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: FINAL_ANSWER }],
            },
          ]
        : [
            {
              type: "function_call",
              callId: callId(turn),
              name: TOOL_NAME,
              arguments: JSON.stringify(toolArgs(turn)),
              status: "completed",
            },
          ];
    return { usage: new Usage(), output };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error("the benchmark does not stream");
  }
}

function agent(toolTurns: number) {
  return new Agent({
    name: "bench",
    instructions: "Fetch the pages the user asks for.",
    model: new ScriptedModel(toolTurns),
    tools: [
      tool({
        name: TOOL_NAME,
        description: "Fetch one page of a document.",
        parameters: z.object({ page: z.number().int().min(0) }),
        needsApproval: true,
        execute: async ({ page }) => toolResult(page),
      }),
    ],
  });
}

const stateFile = (dir: string) => join(dir, "openai-agents-state.json");

/**
 * Drive the run: each `run()` returns at the next tool call's approval, the state is saved, the call
 * approved. `onSaved(k)` hears each save (k = tool results the saved state holds); return false to stop.
 */
async function drive(
  bench: Agent,
  first: string | RunState<unknown, Agent>,
  file: string,
  onSaved: (results: number, bytes: number) => boolean,
): Promise<string | undefined> {
  let result = await runAgent(bench, first, { maxTurns: MAX_TURNS });
  let results = 0;
  while (result.interruptions.length > 0) {
    const bytes = writeDurably(file, result.state.toString());
    if (!onSaved(results, bytes)) return undefined;
    for (const pending of result.interruptions) result.state.approve(pending);
    result = await runAgent(bench, result.state, { maxTurns: MAX_TURNS });
    results++;
  }
  // The last run ended with the final answer: save that state too, as a user would.
  onSaved(results, writeDurably(file, result.state.toString()));
  return result.finalOutput as string | undefined;
}

/**
 * Run N+1 tool turns; the moment the state holding N tool results is saved, die (exit 137),
 * reporting the N turns' times and the bytes written.
 */
export async function run(turns: number, dir: string): Promise<ChildReport> {
  const file = stateFile(dir);
  const marks: number[] = [];
  let written = 0;
  const start = now();
  await drive(agent(turns + 1), USER_INPUT, file, (results, bytes) => {
    written += bytes;
    // A save holding k tool results ends turn k (the first save holds none: it is the run's start).
    if (results > 0) marks.push(now());
    if (results < turns) return true;
    const totalMs = now() - start;
    const atRest = statSync(file).size;
    reportAndDie({
      system: "openai-agents",
      mode: "run",
      turns,
      turnMs: gaps(start, marks),
      totalMs,
      bytesWritten: written,
      bytesAtRest: atRest,
      bytesOnDisk: atRest,
      maxRssKb: maxRssKb(),
      notes: [`${turns + 1} state saves to one file, each rewriting it whole`],
    } satisfies ChildReport);
  });
  throw new Error(`openai-agents: the run ended after ${marks.length}/${turns} turns`);
}

/** In a fresh process: load the saved state, approve, run, time until the state with N+1 results is saved. */
export async function resume(turns: number, dir: string): Promise<ChildReport> {
  const file = stateFile(dir);
  const start = now();
  const bench = agent(turns + 1);
  const state = await RunState.fromString(bench, readFileSync(file, "utf8"));
  for (const pending of state.getInterruptions()) state.approve(pending);
  let resumeMs: number | undefined;
  const output = await drive(bench, state, file, () => {
    resumeMs ??= now() - start;
    return true;
  });
  if (resumeMs === undefined || output !== FINAL_ANSWER) {
    throw new Error(`openai-agents: resume ended with ${String(output)}`);
  }
  return { system: "openai-agents", mode: "resume", turns, resumeMs, maxRssKb: maxRssKb() };
}
