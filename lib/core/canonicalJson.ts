import type { RunEvent } from "./events.ts";

/*
 * Canonical JSON: an event (or any JSON value) written with its object keys sorted, so the same
 * value always gives the same text.
 */

/** Sort keys, as an event read back, forked or retried may order them differently. */
const sortedKeys = (_: string, value: unknown) =>
  value && typeof value === "object" && !Array.isArray(value)
    ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : value;

/**
 * The event as JSON with its keys sorted: the same event always gives the same
 * text, whichever way it was built or read (the store keeps big payloads by its
 * hash; a retried fork recognises the copies it made).
 */
export const canonicalJson = (event: RunEvent): string => canonicalValue(event);

/** Any JSON value with its object keys sorted, as canonicalJson writes events. */
export const canonicalValue = (value: unknown): string => JSON.stringify(value, sortedKeys);
