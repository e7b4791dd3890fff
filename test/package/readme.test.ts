import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { docPages, fences, ROOT, readDoc } from "../support/docs.ts";

/** Code blocks that say which file of the example project they show (first line `// examples/…`). */
const examples = docPages().flatMap((page) =>
  fences(readDoc(page))
    .filter(({ info }) => ["ts", "js"].includes(info.split(/\s/)[0] ?? ""))
    .filter(({ code }) => code.startsWith("// examples/"))
    .map(({ code }, i) => ({ page, i: i + 1, code })),
);

describe("the README", () => {
  const readme = readDoc("README.md");
  const lines = readme.split("\n");

  it("is a front page: at most 200 lines", () => {
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  // `.ci/run` runs these two as written; a reader finds them before anything else.
  it("opens with the two commands, npm test within the first 40 lines", () => {
    const top = lines.slice(0, 40).join("\n");
    expect(top).toContain("npm ci && npm start");
    expect(top).toMatch(/^npm test\b/m);
  });

  it("shows code from the example project", () => {
    expect(examples.filter(({ page }) => page === "README.md").length).toBeGreaterThanOrEqual(2);
  });
});

describe("code from the example project, in README.md and docs/", () => {
  it("has code to check", () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
  });

  // Each block starts with `// examples/…/file` and is that file's text, verbatim: the example
  // project runs in CI, so the docs show code that runs.
  it.each(examples.map((block) => [`${block.page} #${block.i}`, block] as const))(
    "%s is in the example project",
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
