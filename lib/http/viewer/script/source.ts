/**
 * Tags the viewer's JavaScript source (String.raw): an escape written in it (a "\n", a regex)
 * reaches the browser as written, not as the character TypeScript would make of it.
 */
export const js = String.raw;
