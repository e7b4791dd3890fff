/**
 * runlog's local runtime through its public library API: `openLocal` on a data dir (the embedded
 * DynamoDB-compatible store on disk, the ASL state machine in-process), an agent with one tool
 * (`defineTool`), and a scripted model file. Every event is a conditional put acknowledged by the store.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { QueryCommand, type QueryCommandOutput } from "@aws-sdk/client-dynamodb";
import { z } from "zod";
import { connectDynamo } from "../../../lib/adapters/dynamodb/connect.ts";
import { defineTool } from "../../../lib/agents/defineTool.ts";
import { openLocal } from "../../../lib/api/local.ts";
import { gaps, maxRssKb, now, peakRssOf, reportAndDie, sizeOnDisk } from "../measure.ts";
import { type ChildReport, FINAL_ANSWER, TOOL_NAME, toolArgs, toolResult, USER_INPUT } from "../workload.ts";

const RUN_ID = "bench-run";

/** N tool turns, then the final answer. */
function writeScript(dir: string, toolTurns: number): string {
  const turns: unknown[] = [];
  for (let k = 0; k < toolTurns; k++)
    turns.push({ toolCalls: [{ name: TOOL_NAME, arguments: toolArgs(k) }] });
  turns.push({ text: FINAL_ANSWER, stop: "stop" });
  const path = join(dir, `script-${toolTurns}.json`);
  writeFileSync(path, JSON.stringify({ turns }));
  return path;
}

const fetchPage = defineTool({
  name: TOOL_NAME,
  description: "Fetch one page of a document.",
  parameters: z.object({ page: z.number().int().min(0) }),
  idempotent: true,
  run: ({ page }) => toolResult(page),
});

function agents(script: string) {
  return {
    bench: () => ({
      name: "bench",
      instructions: "Fetch the pages the user asks for.",
      tools: [fetchPage],
      defaultModel: `scripted:${script}`,
    }),
  };
}

/** Marks the time each tool result is recorded (the observer hears an event once the store acknowledged it). */
function turnMarks() {
  const marks: number[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  return {
    marks,
    observer: {
      appended: (_runId: string, event: { type: string }) => {
        if (event.type !== "tool_result") return;
        marks.push(now());
        for (const w of waiters.splice(0)) {
          if (marks.length >= w.count) w.resolve();
          else waiters.push(w);
        }
      },
    },
    /** Resolves once `count` tool results were recorded by this instance. */
    reached: (count: number) =>
      new Promise<void>((resolve) => {
        if (marks.length >= count) resolve();
        else waiters.push({ count, resolve });
      }),
  };
}

function serverPeakRss(dataDir: string): number | undefined {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "server.json"), "utf8")) as { pid: number };
    return peakRssOf(pid);
  } catch {
    return undefined;
  }
}

type Attribute = { S?: string; N?: string; B?: Uint8Array; BOOL?: boolean };

/**
 * DynamoDB's item size: attribute names plus values (strings as UTF-8, binary as its bytes,
 * numbers as ~1 byte per 2 digits + 1).
 */
function itemSize(item: Record<string, Attribute>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    bytes += Buffer.byteLength(name, "utf8");
    if (value.S !== undefined) bytes += Buffer.byteLength(value.S, "utf8");
    else if (value.B !== undefined) bytes += value.B.byteLength;
    else if (value.N !== undefined) bytes += Math.ceil(value.N.replace(/^-|\.|^0+/g, "").length / 2) + 1;
    else if (value.BOOL !== undefined) bytes += 1;
    else throw new Error(`bench: no size rule for attribute ${name}: ${Object.keys(value).join(", ")}`);
  }
  return bytes;
}

/** The run's items (events and head) in the table, measured by DynamoDB's size rules. */
export async function storedBytes(dataDir: string, runId: string): Promise<{ bytes: number; items: number }> {
  const { client, tableName } = await connectDynamo({ dataDir });
  let bytes = 0;
  let items = 0;
  let start: QueryCommandOutput["LastEvaluatedKey"];
  try {
    do {
      const page: QueryCommandOutput = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: "runId = :r",
          ExpressionAttributeValues: { ":r": { S: runId } },
          ConsistentRead: true,
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        bytes += itemSize(item as Record<string, Attribute>);
        items++;
      }
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    client.destroy();
  }
  return { bytes, items };
}

/**
 * Run a script of N+1 tool turns and die (exit 137) the moment the N-th tool result is stored,
 * reporting the N turns' times; the stored bytes are measured by `resume`, before its clock starts.
 */
export async function run(turns: number, dir: string): Promise<ChildReport> {
  const script = writeScript(dir, turns + 1);
  const dataDir = join(dir, "runlog");
  const marks: number[] = [];
  let start = 0;
  const observer = {
    appended: (_runId: string, event: { type: string }) => {
      if (event.type !== "tool_result") return;
      marks.push(now());
      if (marks.length < turns) return;
      const helper = serverPeakRss(dataDir);
      reportAndDie({
        system: "runlog",
        mode: "run",
        turns,
        turnMs: gaps(start, marks),
        totalMs: now() - start,
        maxRssKb: maxRssKb(),
        ...(helper === undefined ? {} : { helperMaxRssKb: helper }),
      } satisfies ChildReport);
    },
  };
  const local = await openLocal({ dataDir, agents: agents(script), observer });
  start = now();
  const outcome = await local.runlog.start({ agent: "bench", input: USER_INPUT, runId: RUN_ID });
  throw new Error(`runlog: the run ended ${outcome.status} after ${marks.length}/${turns} tool results`);
}

/**
 * In a fresh process: measure what the interrupted run stored, then (clock on) open the library,
 * resume, and time until turn N+1's tool result is stored; then let the run complete.
 */
export async function resume(turns: number, dir: string): Promise<ChildReport> {
  const script = join(dir, `script-${turns + 1}.json`);
  const dataDir = join(dir, "runlog");
  const stored = await storedBytes(dataDir, RUN_ID);
  const onDisk = sizeOnDisk(join(dataDir, "db"));
  const t = turnMarks();
  const start = now();
  const local = await openLocal({ dataDir, agents: agents(script), observer: t.observer });
  const openMs = now() - start;
  const done = local.runlog.resume({ runId: RUN_ID });
  await Promise.race([t.reached(1), done]);
  const resumeMs = now() - start;
  const outcome = await done;
  await local.close();
  if (t.marks.length !== 1 || outcome.status !== "completed" || outcome.output !== FINAL_ANSWER) {
    throw new Error(`runlog: resume ended ${outcome.status} with ${t.marks.length} new tool results`);
  }
  return {
    system: "runlog",
    mode: "resume",
    turns,
    resumeMs,
    bytesWritten: stored.bytes,
    bytesAtRest: stored.bytes,
    bytesOnDisk: onDisk,
    maxRssKb: maxRssKb(),
    notes: [
      `${stored.items} items (events + head) after ${turns} turns`,
      `resume: openLocal ${openMs.toFixed(1)} ms`,
    ],
  };
}
