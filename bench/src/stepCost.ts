/**
 * What one step costs as a run grows (not part of `npm run bench`'s table):
 *
 * - `stepCost.ts step`: CPU ms of one CallModel step (load the log from the cache, facts, step
 *   budget, the messages for the model, the append) plus the turn's two other appends, on a run of
 *   1,000 and of 15,000 events, with a model that answers at once and a store in memory;
 * - `stepCost.ts resume <dir>`: seed a 1,000-turn run into a SQLite store under `dir`, then in a
 *   fresh process open the library and resume it to the final answer, counting every store call
 *   and event read.
 *
 * node --import tsx bench/src/stepCost.ts step
 * node --import tsx bench/src/stepCost.ts resume /tmp/step-cost
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { SqliteEventStore } from "../../lib/adapters/sqlite/sqliteEventStore.ts";
import { defineTool } from "../../lib/agents/defineTool.ts";
import { openLocal } from "../../lib/api/local.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import { toMessages } from "../../lib/core/messageBuilder.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import type { EventStore } from "../../lib/ports/eventStore.ts";
import { connectStore } from "../../lib/runtime/store.ts";
import { callModel } from "../../lib/steps/callModel.ts";
import type { StepDeps } from "../../lib/steps/deps.ts";
import { LogCache } from "../../lib/steps/logCache.ts";
import { unstoredWork } from "../../lib/steps/unstoredWork.ts";
import { median, now } from "./measure.ts";
import { callId, FINAL_ANSWER, TOOL_NAME, toolArgs, toolResult, USER_INPUT } from "./workload.ts";

const RUN_ID = "step-cost";
const AT = new Date("2026-01-01T00:00:00Z");

/** Turn k's three events: a response asking for one call, the call's start, its 2 KB result. */
function turnEvents(k: number): NewEvent[] {
  const id = callId(k);
  return [
    {
      type: "model_response",
      text: "",
      toolCalls: [{ id, name: TOOL_NAME, arguments: JSON.stringify(toolArgs(k)) }],
      stop: "tool_calls",
      model: "scripted:bench",
    },
    { type: "tool_started", callId: id, name: TOOL_NAME },
    { type: "tool_result", callId: id, name: TOOL_NAME, content: toolResult(k), isError: false },
  ];
}

/** A run of `turns` tool turns, as the steps stamp it. */
function runOf(turns: number, model = "scripted:bench"): RunEvent[] {
  const events: NewEvent[] = [
    { type: "run_started", runId: RUN_ID, agent: "bench", model, input: USER_INPUT },
  ];
  for (let k = 0; k < turns; k++) events.push(...turnEvents(k));
  return events.map((event, i) => stamp(event, i + 1, AT, 1));
}

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function step(): Promise<void> {
  for (const size of [1_000, 15_000]) {
    const log = runOf(Math.floor((size - 1) / 3));
    const store = {
      read: async (_: string, after = 0) => log.slice(after),
      append: async (_: string, event: RunEvent) => {
        log.push(event);
      },
    } as unknown as EventStore;
    const logs = new LogCache(store, { trustTail: true });
    let turn = Math.floor((size - 1) / 3);
    const deps = {
      store,
      logs,
      unstored: unstoredWork(),
      agents: () => ({ name: "bench", instructions: "Fetch pages.", tools: [] }),
      models: () => ({
        spec: "scripted:bench",
        call: async () => ({
          text: "",
          toolCalls: [{ id: callId(turn), name: TOOL_NAME, arguments: JSON.stringify(toolArgs(turn)) }],
          stop: "tool_calls",
        }),
      }),
      clock: { now: () => AT },
      faults: { reached: () => {} },
      stepsPerExecution: 1_000_000,
    } as unknown as StepDeps;
    await logs.load(RUN_ID);
    const samples: number[] = [];
    for (let i = 0; i < 60; i++) {
      const before = cpuMs();
      await callModel(deps, { runId: RUN_ID, generation: 1 });
      // The rest of the turn as RunTool writes it: appended through the cache, as writeNext does.
      for (const event of turnEvents(turn).slice(1)) {
        const stamped = stamp(event, log.length + 1, AT, 1);
        log.push(stamped);
        logs.appended(RUN_ID, stamped);
      }
      samples.push(cpuMs() - before);
      turn++;
    }
    // The first steps warm the JIT (and, incrementally, read the whole log once).
    const steady = samples.slice(10);
    // The messages alone, as the step builds them: from the cache where it can (incrementally), else toMessages.
    const cache = logs as unknown as { messagesOf?: (runId: string, events: readonly RunEvent[]) => unknown };
    const build = async () => {
      const events = await logs.current(RUN_ID);
      return cache.messagesOf ? cache.messagesOf(RUN_ID, events) : toMessages(events);
    };
    const building: number[] = [];
    for (let i = 0; i < 60; i++) {
      for (const event of turnEvents(turn++)) {
        const stamped = stamp(event, log.length + 1, AT, 1);
        log.push(stamped);
        logs.appended(RUN_ID, stamped);
      }
      const before = cpuMs();
      await build();
      building.push(cpuMs() - before);
    }
    process.stdout.write(
      `${JSON.stringify({ events: size, stepCpuMsMedian: +median(steady).toFixed(3), firstStepCpuMs: +samples[0]!.toFixed(2), messagesCpuMsMedian: +median(building.slice(10)).toFixed(3) })}\n`,
    );
  }
}

async function seed(dataDir: string, turns: number): Promise<void> {
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const { store, close } = await connectStore({ dataDir });
  const events = runOf(turns, `scripted:${join(dataDir, "script.json")}`);
  await store.createRun(events[0] as Extract<RunEvent, { type: "run_started" }>);
  for (let i = 1; i < events.length; i += 16) {
    await Promise.all(events.slice(i, i + 16).map((event) => store.append(RUN_ID, event)));
  }
  await store.releaseLease(RUN_ID, "nobody", { status: "interrupted", lastSeq: events.length });
  await close();
  const turnsScript = Array.from({ length: turns }, (_, k) => ({
    toolCalls: [{ name: TOOL_NAME, arguments: toolArgs(k) }],
  }));
  writeFileSync(
    join(dataDir, "script.json"),
    JSON.stringify({ turns: [...turnsScript, { text: FINAL_ANSWER }] }),
  );
}

/** In a fresh process: open the library and resume the seeded run to its final answer. */
async function resumeOnce(dataDir: string): Promise<void> {
  const calls: Record<string, number> = {};
  let eventsRead = 0;
  const proto = SqliteEventStore.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ["read", "readBack", "getHead", "append", "claimLease", "releaseLease", "setStatus"]) {
    const inner = proto[name]!;
    proto[name] = async function (this: unknown, ...args: unknown[]) {
      calls[name] = (calls[name] ?? 0) + 1;
      const result = await inner.apply(this, args);
      if (name === "read" || name === "readBack") eventsRead += (result as unknown[]).length;
      return result;
    };
  }
  const fetchPage = defineTool({
    name: TOOL_NAME,
    description: "Fetch one page.",
    parameters: z.object({ page: z.number().int().min(0) }),
    idempotent: true,
    run: ({ page }) => toolResult(page),
  });
  const agents = {
    bench: () => ({
      name: "bench",
      instructions: "Fetch pages.",
      tools: [fetchPage],
      defaultModel: "unused",
    }),
  };
  // Modules loaded first (as the bench's resume ms is timed): a one-turn run in another data dir.
  const warmDir = join(dataDir, "warm");
  rmSync(warmDir, { recursive: true, force: true });
  mkdirSync(warmDir, { recursive: true });
  const warmScript = join(warmDir, "script.json");
  writeFileSync(
    warmScript,
    JSON.stringify({ turns: [{ toolCalls: [{ name: TOOL_NAME, arguments: toolArgs(0) }] }, { text: "ok" }] }),
  );
  const warm = await openLocal({ dataDir: warmDir, agents });
  await warm.runlog.start({ agent: "bench", input: USER_INPUT, model: `scripted:${warmScript}` });
  await warm.close();
  for (const name of Object.keys(calls)) delete calls[name];
  eventsRead = 0;
  const start = now();
  const cpu = cpuMs();
  const local = await openLocal({ dataDir, agents });
  const opened = now();
  const outcome = await local.runlog.resume({ runId: RUN_ID });
  const done = now();
  const cpuDone = cpuMs();
  await local.close();
  if (outcome.status !== "completed") throw new Error(`resume ended ${outcome.status}`);
  process.stdout.write(
    `${JSON.stringify({ openMs: +(opened - start).toFixed(1), resumeToAnswerMs: +(done - opened).toFixed(1), cpuMs: +(cpuDone - cpu).toFixed(1), calls, eventsRead })}\n`,
  );
}

const [mode, dir] = process.argv.slice(2);
if (mode === "step") await step();
else if (mode === "resume" && dir) {
  for (let i = 0; i < 5; i++) {
    await seed(dir, 1_000);
    execFileSync(process.execPath, ["--import", "tsx", import.meta.filename, "resume-child", dir], {
      stdio: "inherit",
    });
  }
} else if (mode === "seed" && dir) await seed(dir, 1_000);
else if (mode === "resume-child" && dir) await resumeOnce(dir);
else throw new Error("usage: stepCost.ts step | resume <dir>");
