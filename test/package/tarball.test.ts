import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publint } from "publint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, string | { types: string; default: string }>;
  bin: Record<string, string>;
};

interface Packed {
  filename: string;
  files: { path: string }[];
}

/** What `npm pack` puts in the tarball (dist/ is built by test/support/build.ts). */
let packed: Packed;
let files: Set<string>;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "runlog-pack-"));
  const out = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  packed = (JSON.parse(out) as Packed[])[0]!;
  files = new Set(packed.files.map((file) => file.path));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the packed tarball", () => {
  it("holds every export's JavaScript and types, and the bin", () => {
    const targets = Object.values(pkg.exports).flatMap((target) =>
      typeof target === "string" ? [target] : [target.types, target.default],
    );
    for (const target of [...targets, ...Object.values(pkg.bin)]) {
      expect(files, target).toContain(target.replace(/^\.\//, ""));
    }
  });

  it("holds compiled code only: no sources, tests, build state or local data", () => {
    const stray = [...files].filter(
      (path) =>
        !/^(dist\/(lib|functions|cdk)\/.+\.(c?js|d\.c?ts)|dist\/bundle\/.+\.js(\.map)?|bin\/runlog\.js|package\.json|README\.md|LICENSE)$/.test(
          path,
        ),
    );
    expect(stray).toEqual([]);
    // The repository's own CDK app (with cdk-nag, a dev dependency) is not part of the package.
    expect([...files].filter((path) => path.startsWith("dist/cdk/app."))).toEqual([]);
  });

  it("passes publint with no errors or warnings", async () => {
    const { messages } = await publint({ pkgDir: ROOT, level: "warning", strict: true, pack: false });
    expect(messages).toEqual([]);
  });

  it("resolves every entry point with its types (arethetypeswrong, ESM-only)", () => {
    const attw = join(ROOT, "node_modules", "@arethetypeswrong", "cli", "dist", "index.js");
    const result = spawnSync(
      process.execPath,
      [attw, join(dir, packed.filename), "--profile", "esm-only", "--format", "json"],
      { encoding: "utf8" },
    );
    const report = JSON.parse(result.stdout) as {
      problems?: Record<string, { resolutionKind?: string }[]>;
      analysis: { entrypoints: Record<string, unknown> };
    };
    expect(Object.keys(report.analysis.entrypoints).sort()).toEqual(Object.keys(pkg.exports).sort());
    // ESM-only (Node 22 can also require() it): CommonJS-era resolution is not a target.
    const ignored = new Set(["node10", "node16-cjs"]);
    const problems = Object.values(report.problems ?? {})
      .flat()
      .filter((p) => !ignored.has(p.resolutionKind ?? ""));
    expect(problems).toEqual([]);
    expect(result.status).toBe(0);
  });
});
