/**
 * Text from a model or a tool shown to a person: characters that change how text reads without
 * being seen (bidirectional overrides and isolates, zero-width characters, control characters)
 * are shown as visible escapes, so `evil\u202Etxt.exe` cannot read as `evilexe.txt` and a tool
 * output cannot hide words. Line breaks and tabs stay as they are.
 */

/** The characters shown as escapes: C0 controls but tab and line feed, DEL and C1, bidi controls, zero-width ones, line and paragraph separators, the BOM. */
export const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/gu;

/** One character as the escape that shows it: `\u{202e}`. */
export const shownAsEscape = (char: string): string => `\\u{${char.codePointAt(0)!.toString(16)}}`;

/** `text` with every INVISIBLE character written as its escape (`\u{202e}`). */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, shownAsEscape);
}
