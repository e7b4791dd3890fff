import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export const ROOT = join(import.meta.dirname, "..", "..");

/** README.md and every page under docs/, as paths from the repository root. */
export function docPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith(".md") ? [path] : [];
    });
  return ["README.md", ...walk("docs")].map((path) => relative(ROOT, join(ROOT, path)));
}

export const readDoc = (path: string): string => readFileSync(join(ROOT, path), "utf8");

export interface Fence {
  /** The info string after the opening ```: its first word is the language. */
  info: string;
  code: string;
}

/** The fenced code blocks of a Markdown text, in order. */
export function fences(markdown: string): Fence[] {
  return [...markdown.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    info: (m[1] ?? "").trim(),
    code: m[2] ?? "",
  }));
}
