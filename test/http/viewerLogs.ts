import type { NewEvent } from "../../lib/core/events.ts";
import { HOSTILE } from "./viewerSupport.ts";

// Logs the viewer's compare page, run tree and agent-in-charge tests (HTTP and browser) read.

const weather = (id: string, city: string) => ({
  id,
  name: "get_weather",
  arguments: JSON.stringify({ city }),
});
const usage = (inputTokens: number, outputTokens: number) => ({ inputTokens, outputTokens });

/** A recorded run: one weather call (for Faro), then a sunny answer. */
export function recordedLog(runId: string, city = "Faro"): NewEvent[] {
  return [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "Weather?" },
    {
      type: "model_response",
      text: "",
      toolCalls: [weather("c1", city)],
      stop: "tool_calls",
      usage: usage(10, 5),
    },
    { type: "tool_started", callId: "c1", name: "get_weather" },
    { type: "tool_result", callId: "c1", name: "get_weather", content: "sunny", isError: false },
    { type: "model_response", text: "Sunny in Faro.", toolCalls: [], stop: "stop", usage: usage(20, 5) },
  ];
}

/**
 * Its replay on another model: the same call for Lisbon (other arguments), a second call added, and
 * an answer holding HOSTILE (model output, to be escaped); metadata names the original.
 */
export function replayLog(runId: string, original: string): NewEvent[] {
  return [
    {
      type: "run_started",
      runId,
      agent: "demo",
      model: "scripted:other",
      input: "Weather?",
      metadata: { replayOf: original },
    },
    {
      type: "model_response",
      text: "",
      toolCalls: [weather("c1", "Lisbon"), weather("c2", "Porto")],
      stop: "tool_calls",
      usage: usage(30, 10),
    },
    { type: "tool_started", callId: "c1", name: "get_weather" },
    { type: "tool_result", callId: "c1", name: "get_weather", content: "rain", isError: false },
    { type: "tool_started", callId: "c2", name: "get_weather" },
    { type: "tool_result", callId: "c2", name: "get_weather", content: "cloud", isError: false },
    { type: "model_response", text: `Rain ${HOSTILE}`, toolCalls: [], stop: "stop", usage: usage(40, 10) },
  ];
}

/** A parent whose sub-agent call started its child `childId` and waits for it. */
export function parentLog(runId: string, childId: string): NewEvent[] {
  const ask = { id: "call_ask", name: "ask_researcher", arguments: '{"input":"find tea"}' };
  return [
    { type: "run_started", runId, agent: "demo", model: "scripted:demo", input: "Research tea" },
    { type: "model_response", text: "", toolCalls: [ask], stop: "tool_calls" },
    { type: "tool_started", callId: "call_ask", name: "ask_researcher", child: childId },
  ];
}

/** The child a parent's call `call_ask` started: it answered. */
export function childLog(runId: string, parent: string): NewEvent[] {
  return [
    {
      type: "run_started",
      runId,
      agent: "researcher",
      model: "scripted:demo",
      input: "find tea",
      parent: { runId: parent, callId: "call_ask" },
    },
    { type: "model_response", text: "Green tea.", toolCalls: [], stop: "stop" },
  ];
}

/** A run triage started and transferred to billing, which answered on its own model. */
export function transferredLog(runId: string): NewEvent[] {
  const transfer = { id: "call_t", name: "transfer_to_billing", arguments: "{}" };
  return [
    { type: "run_started", runId, agent: "triage", model: "scripted:triage", input: "Refund 42" },
    { type: "model_response", text: "", toolCalls: [transfer], stop: "tool_calls", model: "scripted:triage" },
    {
      type: "transferred",
      callId: "call_t",
      name: "transfer_to_billing",
      from: "triage",
      to: "billing",
      model: "scripted:billing",
    },
    { type: "model_response", text: "Refunded.", toolCalls: [], stop: "stop", model: "scripted:billing" },
  ];
}
