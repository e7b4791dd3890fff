import type { ToolCall } from "./eventFields.ts";
import type { LogFacts } from "./log.ts";

/** A call waiting for approval whose approval expires, and when (epoch ms). */
export interface ExpiringApproval {
  call: ToolCall;
  expiresAt: number;
}

/**
 * The calls of the open batch that still wait for a decision and whose approval expires, each
 * with its deadline: the asking response's time plus the timeout it recorded (`approvalTimeouts`).
 * From the log alone, so any process, at any time after a restart, finds the same deadlines.
 * Pure. Empty when the run is cancelled, or waits for nothing that expires.
 */
export function expiringApprovals(facts: LogFacts): ExpiringApproval[] {
  const batch = facts.batch;
  if (facts.problem || facts.cancelled || !batch?.open) return [];
  const timeouts = batch.response.approvalTimeouts ?? {};
  const asked = Date.parse(batch.response.at);
  const waiting: ExpiringApproval[] = [];
  for (const call of batch.response.toolCalls) {
    const ms = Object.hasOwn(timeouts, call.id) ? timeouts[call.id] : undefined;
    if (ms === undefined || !batch.needsApproval.has(call.id)) continue;
    if (batch.decisions.has(call.id) || batch.results.has(call.id)) continue;
    waiting.push({ call, expiresAt: asked + ms });
  }
  return waiting;
}

/** Those of expiringApprovals whose deadline has come by `now` (epoch ms). */
export const dueApprovals = (facts: LogFacts, now: number): ExpiringApproval[] =>
  expiringApprovals(facts).filter((approval) => approval.expiresAt <= now);
