import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { classify } from "../../../lib/core/classify.ts";
import type { RunEvent } from "../../../lib/core/events.ts";
import { toMessages } from "../../../lib/core/messageBuilder.ts";
import { historyProblem } from "../../core/history.ts";
import type { ShownEvent } from "../../support/cli.ts";

/** Lines of a side-effect file in the data dir (notes.txt, outbox.txt). */
export function lines(dir: string, file: string): string[] {
  try {
    return readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
}

/** The tool calls a log's responses asked for. */
export function callsOf(log: readonly ShownEvent[]): { id: string; name: string; arguments: string }[] {
  return log.flatMap((e) =>
    e.type === "model_response" && e.stop === "tool_calls"
      ? (e.toolCalls as { id: string; name: string; arguments: string }[])
      : [],
  );
}

const count = (items: readonly string[], item: string) => items.filter((x) => x === item).length;

/** The side effect a non-idempotent demo call leaves: its file and the line it appends. */
function effectOf(call: { name: string; arguments: string }): { file: string; line: string } | undefined {
  const args = JSON.parse(call.arguments) as Record<string, string>;
  if (call.name === "write_note") return { file: "notes.txt", line: args.text! };
  if (call.name === "send_email") return { file: "outbox.txt", line: `${args.to}|${args.subject}` };
  return undefined;
}

/**
 * What every run must show once it is over, however often it crashed: seqs
 * 1..n with no gap, each call started at most once and answered exactly once,
 * no side effect twice (and one exactly when the call says it ran), a history
 * a provider accepts, and a log that classifies as completed.
 */
export function expectSound(dir: string, log: readonly ShownEvent[]): void {
  expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
  const events = log as unknown as RunEvent[];
  expect(historyProblem(toMessages(events))).toBeNull();
  expect(classify(events)).toMatchObject({ resumable: false, reason: "completed" });
  for (const call of callsOf(log)) {
    const results = log.filter((e) => e.type === "tool_result" && e.callId === call.id);
    expect(results, `results of ${call.id}`).toHaveLength(1);
    const starts = log.filter((e) => e.type === "tool_started" && e.callId === call.id);
    expect(starts.length, `tool_started of ${call.id}`).toBeLessThanOrEqual(1);
    const effect = effectOf(call);
    if (!effect) continue;
    const times = count(lines(dir, effect.file), effect.line);
    expect(times, `${effect.file} lines "${effect.line}"`).toBeLessThanOrEqual(1);
    const result = results[0]!;
    if (!result.isError) expect(times, `${call.id} says it ran`).toBe(1);
    if (starts.length === 0) expect(times, `${call.id} never started`).toBe(0);
  }
}

/** Every snapshot taken after a process ended is a prefix of the final log: nothing was rewritten. */
export function expectPrefixes(snapshots: readonly ShownEvent[][], final: readonly ShownEvent[]): void {
  for (const snapshot of snapshots) expect(final.slice(0, snapshot.length)).toEqual(snapshot);
}
