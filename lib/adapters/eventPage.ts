import { InvalidInputError } from "../core/errors.ts";
import { EVENT_PREVIEW_BYTES, type PageRequest } from "../ports/eventStore.ts";

/** What a store knows of an event before reading its body: its seq and its stored size. */
export interface StoredSize {
  seq: number;
  storedBytes: number;
}

/** Which events a page holds whole, which as summaries, and whether the log goes on past it. */
export interface PagePlan {
  /** In seq order: `whole` to read the body, `summary` to preview it. */
  entries: { seq: number; whole: boolean }[];
  more: boolean;
}

/** What an event counts against a page's maxBytes: its stored body, or its preview when it is summarized. */
export const pageCost = (storedBytes: number, maxBytes: number) =>
  storedBytes <= maxBytes ? storedBytes : EVENT_PREVIEW_BYTES;

/** A checked PageRequest: afterSeq an integer >= 0, limit and maxBytes integers >= 1. */
export function checkPageRequest(runId: string, request: PageRequest): Required<PageRequest> {
  const { afterSeq = 0, limit, maxBytes } = request;
  const bad = (name: string, value: number, min: number) =>
    new InvalidInputError(`${name}: expected an integer >= ${min} for run ${runId}, got ${value}`, { runId });
  if (!Number.isInteger(afterSeq) || afterSeq < 0) throw bad("afterSeq", afterSeq, 0);
  if (!Number.isInteger(limit) || limit < 1) throw bad("limit", limit, 1);
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw bad("maxBytes", maxBytes, 1);
  return { afterSeq, limit, maxBytes };
}

/**
 * The page readPage returns, planned from stored sizes alone (both stores read those before any
 * body): `sizes` are the events after afterSeq in order, at most limit + 1 of them (the one past
 * the limit only tells whether there is more). An event over maxBytes by itself is a summary
 * costing EVENT_PREVIEW_BYTES; otherwise the page stops before the event that would pass maxBytes.
 */
export function planPage(sizes: readonly StoredSize[], { limit, maxBytes }: Required<PageRequest>): PagePlan {
  const entries: PagePlan["entries"] = [];
  let used = 0;
  for (const { seq, storedBytes } of sizes) {
    if (entries.length === limit) return { entries, more: true };
    const whole = storedBytes <= maxBytes;
    const cost = pageCost(storedBytes, maxBytes);
    if (entries.length > 0 && used + cost > maxBytes) return { entries, more: true };
    entries.push({ seq, whole });
    used += cost;
  }
  return { entries, more: false };
}
