import { existsSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { docPages, ROOT, readDoc } from "../support/docs.ts";

/**
 * Every relative link in README.md, docs/ and cdk/README.md names a file or folder that exists,
 * and a `#anchor` into a Markdown page names one of its headings, so moving a section cannot
 * leave a link behind it.
 */
const PAGES = [...docPages(), "cdk/README.md"];

/** The text outside fenced code blocks and inline code, where Markdown links are links. */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```$/gm, "").replace(/`[^`\n]*`/g, "");

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```$/gm, "").matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return result;
}

interface Link {
  page: string;
  target: string;
}

const links: Link[] = PAGES.flatMap((page) =>
  [...prose(readDoc(page)).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target))
    .map((target) => ({ page, target })),
);

describe("links in the docs", () => {
  it("finds links to check", () => {
    expect(links.length).toBeGreaterThan(50);
  });

  it.each(links.map((link) => [`${link.page} -> ${link.target}`, link] as const))("%s", (_, link) => {
    const [path = "", anchor] = link.target.split("#");
    const file = path === "" ? link.page : normalize(join(dirname(link.page), decodeURI(path)));
    expect(existsSync(join(ROOT, file)), `${file} does not exist`).toBe(true);
    if (anchor !== undefined && file.endsWith(".md")) {
      expect([...anchors(readDoc(file))], `${file} has no heading #${anchor}`).toContain(anchor);
    }
  });
});
