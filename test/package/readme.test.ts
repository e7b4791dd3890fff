import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const SECTION = "## Use it in your project";

/** The README's fenced code blocks in "Use it in your project", with their language. */
function snippets(): { lang: string; code: string }[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`README.md has no "${SECTION}" section`);
  const end = readme.indexOf("\n## ", start + SECTION.length + 2);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1] ?? "",
    code: m[2] ?? "",
  }));
}

describe(`README "${SECTION}"`, () => {
  const code = snippets().filter(({ lang }) => ["ts", "js"].includes(lang));

  it("has code to check", () => {
    expect(code.length).toBeGreaterThanOrEqual(4);
  });

  // Each block starts with `// examples/…/file` and is that
  // file's text, verbatim: the example project runs in CI, so the README shows code that runs.
  it.each(code.map((block, i) => [i + 1, block] as const))(
    "code block %i is in the example project",
    (_, block) => {
      const [first = "", ...rest] = block.code.split("\n");
      const path = /^\/\/ (examples\/\S+)$/.exec(first.trim())?.[1];
      expect(path, `first line names the file: ${first}`).toBeDefined();
      const file = join(ROOT, path!);
      expect(existsSync(file), path).toBe(true);
      const body = rest.join("\n").trimEnd();
      const text = readFileSync(file, "utf8");
      expect(text.includes(body), `${path} does not contain:\n${body}`).toBe(true);
    },
  );
});
