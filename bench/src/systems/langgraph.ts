/**
 * LangGraph JS: the classic agent graph (an `agent` node calling the model, a prebuilt `ToolNode`,
 * `toolsCondition` between them) compiled with the SQLite checkpointer on a file, streamed with
 * `durability: "sync"` so each step's checkpoint is committed before the next step starts.
 */
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { z } from "zod";
import { gaps, maxRssKb, now, reportAndDie, sizeOnDisk } from "../measure.ts";
import {
  type ChildReport,
  callId,
  FINAL_ANSWER,
  TOOL_NAME,
  toolArgs,
  toolResult,
  USER_INPUT,
} from "../workload.ts";

const THREAD = { configurable: { thread_id: "bench-run" } };

const fetchPage = tool(async ({ page }: { page: number }) => toolResult(page), {
  name: TOOL_NAME,
  description: "Fetch one page of a document.",
  schema: z.object({ page: z.number().int().min(0) }),
});

/** The scripted model: turn k (the number of AI messages so far) asks for page k, until `toolTurns`. */
function graph(toolTurns: number, file: string) {
  const model = async (state: { messages: BaseMessage[] }) => {
    const turn = state.messages.filter((m) => AIMessage.isInstance(m)).length;
    if (turn >= toolTurns) return { messages: [new AIMessage(FINAL_ANSWER)] };
    const call = { id: callId(turn), name: TOOL_NAME, args: toolArgs(turn), type: "tool_call" as const };
    return { messages: [new AIMessage({ content: "", tool_calls: [call] })] };
  };
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", model)
    .addNode("tools", new ToolNode([fetchPage]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: SqliteSaver.fromConnString(file) });
}

const options = (turns: number) => ({
  ...THREAD,
  streamMode: "updates" as const,
  durability: "sync" as const,
  recursionLimit: 2 * turns + 10,
});

/** Sum of the stored blobs: every checkpoint (with its metadata) and every pending write. */
function storedBytes(file: string): { bytes: number; checkpoints: number; writes: number } {
  const db = new Database(file, { readonly: true });
  try {
    const c = db
      .prepare("SELECT count(*) n, sum(length(checkpoint) + length(metadata)) b FROM checkpoints")
      .get() as { n: number; b: number | null };
    const w = db.prepare("SELECT count(*) n, sum(length(value)) b FROM writes").get() as {
      n: number;
      b: number | null;
    };
    return { bytes: (c.b ?? 0) + (w.b ?? 0), checkpoints: c.n, writes: w.n };
  } finally {
    db.close();
  }
}

const dbFile = (dir: string) => join(dir, "langgraph.sqlite");
const diskBytes = (file: string) => sizeOnDisk(file) + sizeOnDisk(`${file}-wal`) + sizeOnDisk(`${file}-shm`);

/**
 * Run N+1 tool turns; the moment the N-th tools step is checkpointed, measure the database and die
 * (exit 137), reporting the N turns' times.
 */
export async function run(turns: number, dir: string): Promise<ChildReport> {
  const file = dbFile(dir);
  const app = graph(turns + 1, file);
  const marks: number[] = [];
  const start = now();
  for await (const update of await app.stream({ messages: [new HumanMessage(USER_INPUT)] }, options(turns))) {
    if (!("tools" in update)) continue;
    marks.push(now());
    if (marks.length < turns) continue;
    const totalMs = now() - start;
    const stored = storedBytes(file);
    reportAndDie({
      system: "langgraph",
      mode: "run",
      turns,
      turnMs: gaps(start, marks),
      totalMs,
      bytesWritten: stored.bytes,
      bytesAtRest: stored.bytes,
      bytesOnDisk: diskBytes(file),
      maxRssKb: maxRssKb(),
      notes: [`${stored.checkpoints} checkpoints, ${stored.writes} writes`],
    } satisfies ChildReport);
  }
  throw new Error(`langgraph: the run ended after ${marks.length}/${turns} tool steps`);
}

/** In a fresh process: open the checkpointer, continue the thread, time until the next tools step is saved. */
export async function resume(turns: number, dir: string): Promise<ChildReport> {
  const start = now();
  const app = graph(turns + 1, dbFile(dir));
  let resumeMs: number | undefined;
  for await (const update of await app.stream(null, options(turns + 2))) {
    if ("tools" in update) resumeMs ??= now() - start;
  }
  const messages = (await app.getState(THREAD)).values.messages as BaseMessage[];
  const results = messages.filter((m) => m.getType() === "tool").length;
  if (resumeMs === undefined || results !== turns + 1 || messages.at(-1)?.content !== FINAL_ANSWER) {
    throw new Error(`langgraph: resume saw ${results} tool results, expected ${turns + 1}`);
  }
  return { system: "langgraph", mode: "resume", turns, resumeMs, maxRssKb: maxRssKb() };
}
