import { canonicalValue } from "./canonicalJson.ts";
import { IdTakenError } from "./errors.ts";
import type { RunEvent, RunStarted } from "./events.ts";
import { ownerScope } from "./principal.ts";

const quoted = (text: string) => {
  const chars = [...text];
  return JSON.stringify(chars.length > 40 ? `${chars.slice(0, 39).join("")}…` : text);
};
const ownerKey = (event: RunStarted) => (event.owner ? ownerScope(event.owner) : "");
/** Metadata compared whatever order its keys came in (canonicalJson sorts them). */
const metadataOf = (event: RunStarted) =>
  event.metadata === undefined ? "" : canonicalValue(event.metadata);
const limitsOf = (event: RunStarted) => (event.limits === undefined ? "" : canonicalValue(event.limits));
const settingsOf = (event: RunStarted) =>
  event.modelSettings === undefined ? "" : canonicalValue(event.modelSettings);
const origin = (event: RunStarted) =>
  event.parent === undefined
    ? "started fresh"
    : "seq" in event.parent
      ? `forked from ${event.parent.runId} at seq ${event.parent.seq}`
      : `started by call ${event.parent.callId} of run ${event.parent.runId}`;

/**
 * What sets the run stored under an id apart from the start a caller asked for
 * (owner, agent, model, input, metadata, limits, model settings, parent), in words; another owner's run only as that; empty when they are the same start
 * (a retried create), which stores then answer as `created: false`.
 */
export function startDifferences(wanted: RunStarted, stored: RunEvent | undefined): string[] {
  if (stored === undefined) return ["its first event is missing"];
  if (stored.type !== "run_started") return [`its first event is a ${stored.type}`];
  // Another owner's run is told apart by that alone: nothing of it (input, agent, model) is quoted.
  if (ownerKey(stored) !== ownerKey(wanted)) return ["it is another owner's run"];
  const differences: string[] = [];
  if (stored.agent !== wanted.agent) differences.push(`agent ${stored.agent}, not ${wanted.agent}`);
  if (stored.model !== wanted.model) differences.push(`model ${stored.model}, not ${wanted.model}`);
  if (stored.input !== wanted.input)
    differences.push(`input ${quoted(stored.input)}, not ${quoted(wanted.input)}`);
  if (metadataOf(stored) !== metadataOf(wanted)) differences.push("other metadata");
  if (limitsOf(stored) !== limitsOf(wanted)) differences.push("other limits");
  if (settingsOf(stored) !== settingsOf(wanted)) differences.push("other model settings");
  if (origin(stored) !== origin(wanted)) differences.push(`${origin(stored)}, not ${origin(wanted)}`);
  return differences;
}

/**
 * Refuse a create under an id whose stored run is a different start: an
 * IdTakenError naming the id and exactly what differs.
 */
export function assertSameStart(wanted: RunStarted, stored: RunEvent | undefined, what = "run id"): void {
  const differences = startDifferences(wanted, stored);
  if (differences.length === 0) return;
  throw new IdTakenError(
    wanted.runId,
    differences,
    `${what} ${wanted.runId} is taken by a different run (${differences.join("; ")})`,
    { runId: wanted.runId },
  );
}
