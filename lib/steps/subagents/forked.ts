import type { RunEvent } from "../../core/events.ts";
import { readLog } from "../../core/logReader.ts";
import { forkedSubagentResult } from "../../core/messages.ts";
import { stamp } from "../../core/storedEvents.ts";

/**
 * A fork's copy of its parent's log, made its own where the copy ends inside sub-agent calls: each
 * call whose child had started and not answered is answered as interrupted, and its `tool_started`
 * no longer names that child. The child belongs to the parent (it answers the parent's call, and
 * may be sent more messages); the fork neither waits for it nor lists it, and, as for any call
 * that started and has no result, does not run the sub-agent again on its own: its model reads the
 * answer and decides (a new call starts a child of the fork's). Deterministic (the answers take the
 * copy's last time and generation), so a retried fork writes the same events.
 */
export function ownForkCopy(events: readonly RunEvent[], parentRunId: string, atSeq: number): RunEvent[] {
  const { batch, generation } = readLog(events);
  if (batch === undefined || !batch.open) return [...events];
  const cut = new Map(
    [...batch.children].filter(([callId]) => batch.started.has(callId) && !batch.results.has(callId)),
  );
  if (cut.size === 0) return [...events];
  const copy = events.map((event) =>
    event.type === "tool_started" && cut.has(event.callId) ? withoutChild(event) : event,
  );
  const last = events.at(-1)!;
  const answers = batch.response.toolCalls
    .filter((call) => cut.has(call.id))
    .map((call, index) =>
      stamp(
        {
          type: "tool_result",
          callId: call.id,
          name: call.name,
          content: forkedSubagentResult(parentRunId, atSeq, cut.get(call.id)!),
          isError: true,
          interrupted: true,
        },
        events.length + 1 + index,
        new Date(last.at),
        generation,
      ),
    );
  return [...copy, ...answers];
}

function withoutChild(event: Extract<RunEvent, { type: "tool_started" }>): RunEvent {
  const { child: _, ...rest } = event;
  return rest;
}
