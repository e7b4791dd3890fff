import { describe, expect, it } from "vitest";
import { junitOf, xmlText } from "../../lib/cli/junit.ts";

describe("xmlText", () => {
  it.each([
    [
      "markup",
      `<a href="x">Tom & 'Jerry'</a>`,
      "&lt;a href=&quot;x&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/a&gt;",
    ],
    ["a control character XML cannot hold", "bell\u0007", "bell\\u{7}"],
    ["a lone surrogate", "half \ud83d", "half \\u{d83d}"],
    ["tab, newline and a whole emoji, as they are", "a\tb\n😀", "a\tb\n😀"],
  ])("%s", (_, text, xml) => {
    expect(xmlText(text)).toBe(xml);
  });
});

describe("junitOf", () => {
  it("has one test case per run and a failure for each changed one", () => {
    const figures = { recorded: { turns: 1, tokens: 0 }, replayed: { turns: 1, tokens: 0 } };
    const xml = junitOf({
      changed: 1,
      runs: [
        { runId: "a", replayRunId: "a.replay-1", changed: false, differences: [], figures },
        {
          runId: "b",
          replayRunId: "b.replay-2",
          changed: true,
          differences: [{ what: "status", recorded: "completed", replayed: "failed" }],
          figures,
        },
      ],
    });
    expect(xml.match(/<testcase /g)).toHaveLength(2);
    expect(xml).toContain('<failure message="b.replay-2: status: completed -&gt; failed" type="changed">');
    expect(xml).toContain('tests="2" failures="1"');
  });
});
