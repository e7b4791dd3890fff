import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { docPages, fences, ROOT, readDoc } from "../support/docs.ts";

// test/package/readme.test.ts checks that a block naming an example file is text of that file.
// An excerpt may still mislead whoever copies it: one that starts at the file's top reads as the
// whole file, and a block that imports from a file the page shows relies on what that block exports.

interface Block {
  page: string;
  /** The file the block names (`// examples/…`), if it names one. */
  path?: string;
  body: string;
}

const blocks: Block[] = docPages().flatMap((page) =>
  fences(readDoc(page))
    .filter(({ info }) => ["ts", "js"].includes(info.split(/\s/)[0] ?? ""))
    .map(({ code }) => {
      const [first = "", ...rest] = code.split("\n");
      const path = /^\/\/ (examples\/\S+)$/.exec(first.trim())?.[1];
      return path === undefined ? { page, body: code } : { page, path, body: rest.join("\n").trimEnd() };
    }),
);
const named = blocks.filter((block): block is Block & { path: string } => block.path !== undefined);

/** The names a piece of TypeScript exports (`export const x`, `export function x`, `export { a, b as c }`). */
function exportsOf(code: string): Set<string> {
  const names = new Set<string>();
  for (const m of code.matchAll(
    /^export\s+(?:async\s+)?(?:const|let|function\*?|class|type|interface)\s+(\w+)/gm,
  ))
    names.add(m[1]!);
  for (const m of code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm))
    for (const part of m[1]!.split(",")) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .at(-1)
        ?.trim();
      if (name) names.add(name);
    }
  return names;
}

/** What a block imports by name from a relative module: `[specifier, names]`. */
function importsOf(code: string): [string, string[]][] {
  return [...code.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(\.[^"]+)"/gm)].map((m) => [
    m[2]!,
    m[1]!
      .split(",")
      .map((part) =>
        part
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((name) => name !== ""),
  ]);
}

describe("code blocks from the example projects", () => {
  it("has blocks to check", () => {
    expect(named.length).toBeGreaterThanOrEqual(6);
  });

  it.each(named.map((block) => [`${block.page}: ${block.path}`, block] as const))(
    "%s: a block that starts at the file's top (read as the whole file) leaves out none of its exports",
    (_key, block) => {
      const text = readFileSync(join(ROOT, block.path), "utf8").trimEnd();
      if (!text.startsWith(block.body)) return;
      // Shown in parts (a test file's set-up, then a test): the page's blocks of the file together.
      const shown = named.filter((other) => other.page === block.page && other.path === block.path);
      const exported = new Set(shown.flatMap((other) => [...exportsOf(other.body)]));
      const missing = [...exportsOf(text)].filter((name) => !exported.has(name));
      expect(missing, `${block.path} goes on past the block of ${block.page}, exporting more`).toEqual([]);
    },
  );

  const imports = named.flatMap((block) =>
    importsOf(block.body).map(([specifier, names]) => {
      const target = normalize(join(dirname(block.path), specifier));
      return { block, target, names };
    }),
  );

  it.each(
    imports.map(
      (entry) => [`${entry.block.page}: ${entry.block.path} imports ${entry.target}`, entry] as const,
    ),
  )(
    "%s: the names it imports are exported by the page's blocks of that file",
    (_key, { block, target, names }) => {
      const shown = named.filter((other) => other.page === block.page && other.path === target);
      if (shown.length === 0) return;
      const exported = new Set(shown.flatMap((other) => [...exportsOf(other.body)]));
      expect(names.filter((name) => !exported.has(name))).toEqual([]);
    },
  );
});
