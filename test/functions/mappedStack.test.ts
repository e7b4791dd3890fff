import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mappedStack } from "../../functions/observability/mappedStack.ts";

/**
 * Lambda bundles run without --enable-source-maps; a logged stack is mapped from the bundle's
 * linked map instead. A bundle made as the construct makes one (ESM, minified, names kept, a
 * linked map without sources' content) throws from a known line of its source.
 */
let dir: string;
let stack: string;
const wasEnabled = process.sourceMapsEnabled;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mapped-stack-"));
  writeFileSync(
    join(dir, "thrower.ts"),
    [
      "export function handler(input: { n: number }): number {",
      "  const doubled = input.n * 2;",
      "  if (doubled > 2) {",
      '    throw new Error("too big: " + doubled);',
      "  }",
      "  return doubled;",
      "}",
      "",
    ].join("\n"),
  );
  await build({
    entryPoints: [join(dir, "thrower.ts")],
    outfile: join(dir, "bundle", "index.mjs"),
    bundle: true,
    format: "esm",
    platform: "node",
    minify: true,
    keepNames: true,
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "silent",
  });
  // Thrown in a process of its own, as in a Lambda: plain Node, which maps nothing (the test
  // runner's own loader would map it).
  const url = pathToFileURL(join(dir, "bundle", "index.mjs")).href;
  const thrown = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `try { (await import(${JSON.stringify(url)})).handler({ n: 5 }); } catch (e) { process.stdout.write(e.stack); }`,
    ],
    { encoding: "utf8" },
  );
  stack = thrown.stdout;
  process.setSourceMapsEnabled(false);
});
afterAll(() => {
  process.setSourceMapsEnabled(wasEnabled);
  rmSync(dir, { recursive: true, force: true });
});

describe("mappedStack: a logged stack names the sources", () => {
  it("maps a bundle's frame to its source file, line and column", () => {
    expect(stack).toMatch(/index\.mjs:1:\d+/);
    const mapped = mappedStack(stack);
    expect(mapped.split("\n")[0]).toBe("Error: too big: 10");
    expect(mapped).toMatch(/at (?:Module\.)?handler \(.*thrower\.ts:4:11\)/);
    expect(mapped).not.toContain("index.mjs");
  });

  it("leaves frames of files without a map, and lines that are not frames, as they are", () => {
    const other =
      "Error: x\n    at f (file:///nowhere/app.mjs:3:4)\n    at node:internal/process:1:1\n  not a frame";
    expect(mappedStack(other)).toBe(other);
  });

  it("leaves a stack alone when Node maps stacks itself", () => {
    process.setSourceMapsEnabled(true);
    try {
      expect(mappedStack(stack)).toBe(stack);
    } finally {
      process.setSourceMapsEnabled(false);
    }
  });
});
