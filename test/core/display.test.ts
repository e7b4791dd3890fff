import { describe, expect, it } from "vitest";
import { showInvisible } from "../../lib/core/display.ts";

describe("showInvisible", () => {
  it.each([
    ["a right-to-left override", "invoice\u202Etxt.exe", "invoice\\u{202e}txt.exe"],
    ["an isolate", "a\u2066b\u2069c", "a\\u{2066}b\\u{2069}c"],
    ["a zero-width space", "pass\u200Bword", "pass\\u{200b}word"],
    ["a byte order mark", "\uFEFFhi", "\\u{feff}hi"],
    ["an escape sequence", "\u001B[31mred", "\\u{1b}[31mred"],
    ["a C1 control", "a\u0085b", "a\\u{85}b"],
    ["a line separator", "a\u2028b", "a\\u{2028}b"],
  ])("shows %s as an escape", (_name, text, shown) => {
    expect(showInvisible(text)).toBe(shown);
  });

  it("leaves line breaks, tabs and every visible script as they are", () => {
    const text = "line one\n\tindented — café, 日本語, العربية, emoji 👍🏽";
    expect(showInvisible(text)).toBe(text);
  });
});
