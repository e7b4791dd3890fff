import { errorMessage } from "./errors.ts";

/** A value's size as JSON text in UTF-8: what it weighs in an answer, an item or an entry. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8");

/**
 * jsonBytes of a value a caller gave, or JSON's own words (on one line) for why it cannot be
 * written: zod's json() takes an object that holds itself, which JSON.stringify refuses.
 */
export function givenJsonBytes(value: unknown): number | { problem: string } {
  try {
    return jsonBytes(value);
  } catch (error) {
    return { problem: errorMessage(error).replace(/\s+/g, " ") };
  }
}

/**
 * The first `maxBytes` bytes of UTF-8 text as a string, cut before a character split at the end.
 * Bytes that are not UTF-8 become U+FFFD, or with `fatal` throw a TypeError.
 */
export function utf8Prefix(bytes: Uint8Array, maxBytes: number, fatal = false): string {
  // `stream: true` holds back an incomplete last character instead of turning it into U+FFFD.
  return new TextDecoder("utf-8", { fatal }).decode(bytes.subarray(0, maxBytes), { stream: true });
}
