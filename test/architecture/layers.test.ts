import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/gms)].map((m) => m[1]!);
}

const SDKS = /^(@aws-sdk\/|aws-cdk-lib|constructs|openai|dynalite|aws-local-stepfunctions|hono)/;

describe("the dependency rule of docs/design/architecture.md", () => {
  it.each(sources("lib/core"))("%s imports only zod and core", (file) => {
    for (const spec of imports(file)) {
      const ok = spec === "zod" || (spec.startsWith("./") && !spec.includes(".."));
      expect(ok, `${file} imports ${spec}`).toBe(true);
    }
  });

  it.each([...sources("lib/steps"), ...sources("lib/ports"), ...sources("lib/workflow")])(
    "%s imports no SDK and no adapter",
    (file) => {
      for (const spec of imports(file)) {
        expect(SDKS.test(spec), `${file} imports ${spec}`).toBe(false);
        expect(spec.startsWith("node:"), `${file} imports ${spec}`).toBe(false);
        const target = spec.startsWith(".") ? relative(ROOT, join(ROOT, file, "..", spec)) : spec;
        expect(
          target.startsWith("lib/adapters") || target.startsWith("lib/cli"),
          `${file} imports ${spec}`,
        ).toBe(false);
      }
    },
  );
});
