/**
 * The first `maxBytes` bytes of UTF-8 text as a string, cut before a character split at the end.
 * Bytes that are not UTF-8 become U+FFFD, or with `fatal` throw a TypeError.
 */
export function utf8Prefix(bytes: Uint8Array, maxBytes: number, fatal = false): string {
  // `stream: true` holds back an incomplete last character instead of turning it into U+FFFD.
  return new TextDecoder("utf-8", { fatal }).decode(bytes.subarray(0, maxBytes), { stream: true });
}
