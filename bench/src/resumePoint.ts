/**
 * `resume-point` on a 10,000-event run. `resumePoint.ts seed <dir>` writes the log through runlog's
 * event store (run_started, then 3,333 turns of model_response, tool_started and a 2 KB tool_result:
 * what a run of this workload writes, each event stamped with its generation as the steps stamp it); `resumePoint.ts measure <dir>` times, in a fresh process,
 * opening the library and one `runlog.resumePoint(runId)`, then a few more calls on the same instance.
 */
import { writeSync } from "node:fs";
import { join } from "node:path";
import { openLocal } from "../../lib/api/local.ts";
import type { RunEvent } from "../../lib/core/events.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { connectStore } from "../../lib/runtime/store.ts";
import { median, now } from "./measure.ts";
import { callId, TOOL_NAME, toolArgs, toolResult, USER_INPUT } from "./workload.ts";

export const RUN_ID = "bench-10k";
export const EVENTS = 10_000;
const WINDOW = 16;
/** Stamped on every event as runlog's steps do: the generation the event leaves the run in. */
const GENERATION = 1;

function eventAt(seq: number, at: Date): RunEvent {
  if (seq === 1) {
    return stamp(
      { type: "run_started", runId: RUN_ID, agent: "bench", model: "scripted:bench", input: USER_INPUT },
      seq,
      at,
      GENERATION,
    );
  }
  const turn = Math.floor((seq - 2) / 3);
  const id = callId(turn);
  switch ((seq - 2) % 3) {
    case 0:
      return stamp(
        {
          type: "model_response",
          text: "",
          toolCalls: [{ id, name: TOOL_NAME, arguments: JSON.stringify(toolArgs(turn)) }],
          stop: "tool_calls",
          model: "scripted:bench",
        },
        seq,
        at,
        GENERATION,
      );
    case 1:
      return stamp({ type: "tool_started", callId: id, name: TOOL_NAME }, seq, at, GENERATION);
    default:
      return stamp(
        { type: "tool_result", callId: id, name: TOOL_NAME, content: toolResult(turn), isError: false },
        seq,
        at,
        GENERATION,
      );
  }
}

async function seed(dataDir: string): Promise<void> {
  const { store, close } = await connectStore({ dataDir });
  const start = now();
  const first = eventAt(1, new Date());
  if (first.type !== "run_started") throw new Error("unreachable");
  await store.createRun(first);
  for (let seq = 2; seq <= EVENTS; seq += WINDOW) {
    const batch: Promise<void>[] = [];
    for (let s = seq; s < Math.min(seq + WINDOW, EVENTS + 1); s++)
      batch.push(store.append(RUN_ID, eventAt(s, new Date())));
    await Promise.all(batch);
  }
  const count = (await store.read(RUN_ID)).length;
  await close();
  if (count !== EVENTS) throw new Error(`seeded ${count} events, expected ${EVENTS}`);
  writeSync(1, `${JSON.stringify({ seeded: count, ms: now() - start })}\n`);
}

async function measure(dataDir: string): Promise<void> {
  const start = now();
  const local = await openLocal({ dataDir });
  const opened = now();
  const first = await local.runlog.resumePoint(RUN_ID);
  const firstMs = now() - opened;
  const again: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = now();
    await local.runlog.resumePoint(RUN_ID);
    again.push(now() - t);
  }
  await local.close();
  if (!first.resumable) throw new Error(`resume point: ${first.description}`);
  const report = {
    openMs: opened - start,
    firstMs,
    warmMedianMs: median(again),
    kind: first.kind,
  };
  writeSync(1, `${JSON.stringify(report)}\n`);
}

const [mode, dir = ""] = process.argv.slice(2);
const dataDir = join(dir, "runlog");
if (mode === "seed") await seed(dataDir);
else if (mode === "measure") await measure(dataDir);
else {
  process.stderr.write("usage: resumePoint.ts <seed|measure> <dir>\n");
  process.exit(2);
}
process.exit(0);
