import { type LocalRunlog, openLocal } from "../../lib/api/local.ts";
import { canonicalJson } from "../../lib/core/canonicalJson.ts";
import type { NewEvent, RunEvent } from "../../lib/core/events.ts";
import type { RunStatus } from "../../lib/core/status.ts";
import { stamp } from "../../lib/core/storedEvents.ts";
import { type AppOptions, createApp } from "../../lib/http/app.ts";
import { RESPONSE_MAX_BYTES } from "../../lib/http/limits.ts";
import { FOLD_CHARS } from "../../lib/http/viewer/fold.ts";
import { cleanup, tempDataDir, testEnv } from "../support/cli.ts";
import { connectStore } from "../support/store.ts";

/** Text that would run as a script if a page put it in unescaped. */
export const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
/** A tool result of 1 MB: the page must fold it, never list it whole. */
export const BIG = "x".repeat(1024 * 1024);

const AT = new Date("2026-01-01T00:00:00Z");

/**
 * A run whose executor died in a tool call: the call started and has no result (as a killed
 * process leaves it). Its model text and tool arguments hold HOSTILE; an earlier call returned BIG.
 */
export function crashedLog(runId: string): NewEvent[] {
  const call = (id: string, args: string) => ({ id, name: "get_weather", arguments: args });
  return [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go" },
    {
      type: "model_response",
      text: `thinking ${HOSTILE}`,
      toolCalls: [call("call_big", '{"city":"Faro"}')],
      stop: "tool_calls",
      usage: { inputTokens: 12, outputTokens: 34 },
      ms: 56,
    },
    { type: "tool_started", callId: "call_big", name: "get_weather" },
    { type: "tool_result", callId: "call_big", name: "get_weather", content: BIG, isError: false, ms: 7 },
    {
      type: "model_response",
      text: "",
      toolCalls: [call("call_cut", JSON.stringify({ city: HOSTILE }))],
      stop: "tool_calls",
    },
    { type: "tool_started", callId: "call_cut", name: "get_weather" },
  ];
}

/** A completed run whose answer is 100,000 characters: over what the page shows, within one page of events. */
export function wordyLog(runId: string): NewEvent[] {
  return [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go on" },
    { type: "model_response", text: "word ".repeat(20_000), toolCalls: [], stop: "stop" },
  ];
}

/**
 * A completed run whose answer's event is 8 bytes under RESPONSE_MAX_BYTES of JSON: too big for a
 * page ({runId, events, next} around it) and for GET /runs/{id}/events/{seq} ({runId, event}) whole.
 */
export function edgeLog(runId: string): NewEvent[] {
  const answer = (text: string): NewEvent => ({ type: "model_response", text, toolCalls: [], stop: "stop" });
  const bytes = (text: string) => Buffer.byteLength(canonicalJson(stamp(answer(text), 2, AT, 1)), "utf8");
  return [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "go on" },
    answer("w".repeat(RESPONSE_MAX_BYTES - 8 - bytes(""))),
  ];
}

/** Arguments of a call waiting for approval: longer than the decide form shows. */
export const LONG_ARGUMENTS = JSON.stringify({ to: "ana@example.com", body: "tea ".repeat(FOLD_CHARS) });

/** A run paused on a call (call_long) whose arguments are LONG_ARGUMENTS. */
export function longApprovalLog(runId: string): NewEvent[] {
  const call = { id: "call_long", name: "send_email", arguments: LONG_ARGUMENTS };
  return [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "write to Ana" },
    { type: "model_response", text: "", toolCalls: [call], stop: "tool_calls", approvals: [call.id] },
  ];
}

/** The head a run rests with, as its execution's Finish would have recorded it. */
export interface Rested {
  status: RunStatus;
  /** The agent in charge (after a transfer). */
  agent?: string;
}

/** Write runs straight into the store of a data dir, as steps would have written them (and rested the runs in `rested`). */
export async function writeRuns(
  dir: string,
  logs: Record<string, NewEvent[]>,
  rested: Record<string, Rested>,
): Promise<void> {
  const open = await connectStore({ dataDir: dir, env: testEnv() });
  try {
    for (const [runId, log] of Object.entries(logs)) {
      const events: RunEvent[] = log.map((event, i) => stamp(event, i + 1, AT, 1));
      await open.store.createRun(events[0] as Extract<RunEvent, { type: "run_started" }>);
      for (const event of events.slice(1)) await open.store.append(runId, event);
      const rest = rested[runId];
      if (rest) await open.store.setStatus(runId, rest.status, events.length, rest.agent);
    }
  } finally {
    await open.close();
  }
}

/**
 * The app with the viewer on (as `runlog serve` makes it) over a fresh data dir holding `logs`;
 * the runs named in `rested` have the heads their Finish would have left.
 */
export async function openViewer(
  label: string,
  logs: Record<string, NewEvent[]> = {},
  rested: Record<string, Rested> = {},
) {
  const dir = tempDataDir(label);
  await writeRuns(dir, logs, rested);
  const local: LocalRunlog = await openLocal({ dataDir: dir, background: true, env: testEnv() });
  const options: AppOptions = { allowScriptFiles: true, viewer: true };
  return {
    dir,
    local,
    app: createApp(local.runlog, options),
    /** The same runs through the app without the viewer (as the Lambda serves them). */
    plain: createApp(local.runlog, { allowScriptFiles: true }),
    close: async () => {
      await local.close();
      await cleanup(dir);
    },
  };
}
