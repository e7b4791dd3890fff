import { showInvisible, shownAsEscape } from "../core/display.ts";

/**
 * Text for a person's terminal. Model and tool text is arbitrary: an escape
 * sequence in it would be obeyed by the terminal (clear the screen, retitle
 * the window, rewrite an earlier line), so every character that controls
 * rather than prints is shown as an escape instead. JSON output never comes
 * here: JSON.stringify already escapes what JSON needs.
 */

// A lone surrogate is not text: it cannot be encoded as UTF-8 and prints as garbage.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `text` with every invisible or controlling character (but newline and tab: lib/core/display.ts,
 * the viewer's rule too) and every lone surrogate shown as `\u{…}`.
 */
export function forTerminal(text: string): string {
  return showInvisible(text.replaceAll("\r\n", "\n")).replaceAll(LONE_SURROGATE, shownAsEscape);
}

/**
 * Made when a line first needs cutting between graphemes: building a segmenter loads ICU's break
 * rules (several ms), which a command whose lines all fit (`ls` of short ids) never needs.
 */
let graphemes: Intl.Segmenter | undefined;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * One line of at most `max` characters as a person counts them: whitespace runs
 * become one space, and a cut falls between graphemes (never inside a
 * surrogate pair, an emoji sequence or a letter with its accents), marked "…".
 */
export function clip(text: string, max = 100): string {
  // Most of a long text is never shown: a head of printable ASCII (one grapheme a character) is
  // cut there without collapsing or segmenting the rest (`show` clips every 2 KB tool result).
  if (text.length > 4 * max) {
    const head = text
      .slice(0, 4 * max)
      .replaceAll(/\s+/g, " ")
      .trim();
    if (head.length > max && PRINTABLE_ASCII.test(head.slice(0, max))) return `${head.slice(0, max - 1)}…`;
  }
  const line = text.replaceAll(/\s+/g, " ").trim();
  // Fast path: no line of max UTF-16 units or fewer can hold more than max graphemes.
  if (line.length <= max) return line;
  let kept = "";
  let count = 0;
  // The segmenter iterates lazily, so a 100 KB tool result costs `max` segments, not 100 K.
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const { segment } of graphemes.segment(line)) {
    if (count === max - 1) {
      // One more grapheme and nothing after it fits whole; anything more is cut.
      return kept.length + segment.length === line.length ? line : `${kept}…`;
    }
    kept += segment;
    count++;
  }
  return line;
}
