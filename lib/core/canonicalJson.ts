import type { RunEvent } from "./events.ts";

/*
 * Canonical JSON: an event (or any JSON value) written with its object keys sorted, so the same
 * value always gives the same text.
 */

/**
 * The event as JSON with its keys sorted: the same event always gives the same
 * text, whichever way it was built or read (the store keeps big payloads by its
 * hash; a retried fork recognises the copies it made).
 */
export const canonicalJson = (event: RunEvent): string => canonicalValue(event);

/**
 * Any JSON value with its object keys sorted, as canonicalJson writes events: the text
 * `JSON.stringify` gives for the value with each object rebuilt from its entries sorted by key,
 * which is the text every stored event has (test/core/canonicalJson.test.ts holds it to that
 * definition). Written out directly instead of through a replacer that rebuilds each object: every
 * event is written once a turn, and the rebuilt objects cost 5-6% of a turn's CPU
 * (bench/HISTORY.md, 2026-12-07 07:10).
 */
export function canonicalValue(value: unknown): string {
  // JSON.stringify gives undefined for undefined, a function or a symbol at the top.
  return write(value, "") as string;
}

/**
 * The text of `value` under `key`, or undefined where JSON.stringify leaves a property out. As
 * JSON.stringify does: a `toJSON` first, a number that is not finite written `null`, a bigint
 * refused (JSON.stringify throws its TypeError).
 */
function write(value: unknown, key: string): string | undefined {
  let v = value;
  if (typeof v === "object" && v !== null) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") v = toJSON.call(v, key);
  }
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? String(v) : "null";
    case "boolean":
      return v ? "true" : "false";
    case "object":
      if (v === null) return "null";
      return Array.isArray(v) ? writeArray(v) : writeObject(v as Record<string, unknown>);
    case "bigint":
      return JSON.stringify(v);
    default:
      return undefined;
  }
}

function writeArray(items: readonly unknown[]): string {
  let text = "[";
  for (let i = 0; i < items.length; i++) {
    if (i > 0) text += ",";
    text += write(items[i], String(i)) ?? "null";
  }
  return `${text}]`;
}

function writeObject(object: Record<string, unknown>): string {
  let text = "{";
  let first = true;
  for (const key of sortedKeys(object)) {
    const member = write(object[key], key);
    if (member === undefined) continue;
    text += `${first ? "" : ","}${JSON.stringify(key)}:${member}`;
    first = false;
  }
  return `${text}}`;
}

/** An array index as a property key ("0", "7", "42", not "07" or "4294967295"). */
const isIndex = (key: string) => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;

/**
 * The object's own enumerable keys in the order the stored text has them: sorted by UTF-16 code
 * unit, except that array-index keys come first in numeric order, as an object built from the
 * sorted entries lists them (Object.keys already gives those first, in that order).
 */
function sortedKeys(object: Record<string, unknown>): string[] {
  const keys = Object.keys(object);
  let indices = 0;
  while (indices < keys.length && isIndex(keys[indices] as string)) indices++;
  if (indices === 0) return keys.sort();
  return [...keys.slice(0, indices), ...keys.slice(indices).sort()];
}
