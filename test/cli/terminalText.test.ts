import { afterAll, describe, expect, it } from "vitest";
import { clip, forTerminal } from "../../lib/cli/terminal.ts";
import { cleanup, script, tempDataDir } from "../support/cli.ts";
import { cli } from "./support.ts";

const dir = tempDataDir("cli-terminal");
afterAll(() => cleanup(dir));

const ESC = "\u001b";
/** Clear the screen, retitle the window, ring the bell, rewrite the line, and a C1 CSI. */
const HOSTILE = `${ESC}[2J${ESC}]0;pwned\u0007\rfake prompt$ \u009b31m`;
/** Any byte that makes a terminal act rather than print (tab and newline aside). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe("model and tool text on a terminal", () => {
  it("is shown with its control characters escaped, in progress lines, outcomes and show", async () => {
    // 68 letters then emoji: a cut after 69 UTF-16 units falls inside the first surrogate pair.
    const answer = `${"a".repeat(68)}😀😀😀 ${HOSTILE} and the rest`;
    const model = script(dir, "hostile", [
      { toolCalls: [{ name: "get_weather", arguments: { city: `Lisbon${HOSTILE}` } }] },
      { text: answer, stop: "stop" },
    ]);
    const run = await cli(["run", "--run-id", "hostile", "--model", model, "go"], { dir });
    expect(run.code, run.stderr).toBe(0);
    const shown = await cli(["show", "hostile"], { dir });
    for (const output of [run, shown]) {
      expect(output.stdout).not.toMatch(CONTROL);
      // No half of a character: a lone surrogate reaches the terminal as U+FFFD.
      expect(output.stdout).not.toContain("\ufffd");
      expect(output.stdout).toContain("\\u{1b}]0;pwned\\u{7}");
    }
    // The whole answer is printed, escaped, with its own newlines kept.
    expect(run.stdout).toContain(forTerminal(answer));
    // A cut progress line ends on a whole character.
    expect(shown.stdout).toMatch(/a{68}😀…"/);
  });

  it("--json stays the exact text, control characters and all", async () => {
    const shown = await cli(["show", "hostile", "--json"], { dir });
    const events = JSON.parse(shown.stdout).events as { type: string; text?: string; content?: string }[];
    expect(events.find((e) => e.type === "model_response" && e.text)?.text).toContain(HOSTILE);
    expect(events.find((e) => e.type === "tool_result")?.content).toContain(HOSTILE);
  });

  it("errors that quote a caller's text are escaped too", async () => {
    const result = await cli(["run", "--agent", `x${ESC}[2J`, "hi"], { dir });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stderr).toMatch(/unknown agent/);
  });
});

describe("forTerminal", () => {
  it.each([
    ["plain text", "plain text"],
    ["keeps\nnewlines\tand tabs", "keeps\nnewlines\tand tabs"],
    ["windows\r\nline ends", "windows\nline ends"],
    [`${ESC}[31mred`, "\\u{1b}[31mred"],
    ["a lone \r return", "a lone \\u{d} return"],
    ["DEL \u007f and C1 \u0085", "DEL \\u{7f} and C1 \\u{85}"],
    ["bidi \u202eevil\u202c", "bidi \\u{202e}evil\\u{202c}"],
    ["half \ud83d of an emoji", "half \\u{d83d} of an emoji"],
    ["emoji 😀 and accents é", "emoji 😀 and accents é"],
  ])("%j", (text, shown) => {
    expect(forTerminal(text)).toBe(shown);
    expect(forTerminal(forTerminal(text))).toBe(shown);
  });
});

describe("clip", () => {
  it.each<[string, number, string]>([
    ["short", 10, "short"],
    ["  spaced \n\t out  ", 20, "spaced out"],
    ["exactly ten", 11, "exactly ten"],
    ["abcdefghijk", 5, "abcd…"],
    ["ab😀😀😀", 4, "ab😀…"],
    ["ab😀😀", 4, "ab😀😀"],
    ["👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦", 2, "👩‍👩‍👧‍👦…"],
    ["e\u0301e\u0301e\u0301", 2, "e\u0301…"],
  ])("%j to %i", (text, max, clipped) => {
    expect(clip(text, max)).toBe(clipped);
    expect([...new Intl.Segmenter().segment(clip(text, max))].length).toBeLessThanOrEqual(max);
  });

  /** clip as it was before its shortcut for long texts: collapse the whole text, then segment. */
  function clipWhole(text: string, max: number): string {
    const line = text.replaceAll(/\s+/g, " ").trim();
    const parts = [...new Intl.Segmenter().segment(line)].map((part) => part.segment);
    return parts.length <= max ? line : `${parts.slice(0, max - 1).join("")}…`;
  }

  it("clips a long text as collapsing and segmenting all of it would", () => {
    const pieces = [
      "word ",
      "  \n\t",
      "e\u0301",
      "😀",
      "👩‍👩‍👧‍👦",
      "x",
      "\r\n",
      "a".repeat(50),
      " ".repeat(500),
    ];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 400; i++) {
      const text = Array.from({ length: 20 + (next() % 300) }, () => pieces[next() % pieces.length]).join("");
      const max = 5 + (next() % 120);
      expect(clip(text, max), JSON.stringify({ text, max })).toBe(clipWhole(text, max));
    }
    const page = `${"Lorem ipsum dolor sit amet. ".repeat(80)}`;
    expect(clip(page, 100)).toBe(clipWhole(page, 100));
    expect(clip(`${"a".repeat(99)}e\u0301${"b".repeat(900)}`, 100)).toBe(`${"a".repeat(99)}…`);
  });
});
