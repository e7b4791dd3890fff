import type { RunEvent, RunStarted } from "../../../lib/core/events.ts";
import { stamp } from "../../../lib/core/storedEvents.ts";

export function started(runId: string, input = "hello"): RunStarted {
  return stamp(
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input },
    1,
    new Date(),
  ) as RunStarted;
}

export function message(seq: number, text = `message ${seq}`): RunEvent {
  return stamp({ type: "user_message", text }, seq, new Date());
}
