/**
 * Issue 27's cold starts: a Lambda bundle evaluates at import everything its handler reaches by
 * static imports (esbuild defers only what is reached by `import()`), so each handler's static
 * graph holds only what every invocation of it needs. The model SDKs, the MCP SDK and the clients
 * only one function uses (the redrive's Lambda and SQS) load on first use, inside the function
 * that uses them. Checked on the graph esbuild bundles (its metafile), not on the time it takes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const FUNCTIONS = join(ROOT, "functions");

/** Packages no handler may evaluate just by being imported. */
const NEVER_AT_IMPORT = [
  "openai",
  "@aws-sdk/client-bedrock-runtime",
  "@modelcontextprotocol/sdk",
  "@aws-sdk/client-lambda",
  "@aws-sdk/client-sqs",
  "ajv",
  "aws-cdk-lib",
  "constructs",
];

/** The handler modules: every file of functions/ that exports `handler`. */
const handlers = readdirSync(FUNCTIONS).filter(
  (file) =>
    file.endsWith(".ts") && /export const handler\b/.test(readFileSync(join(FUNCTIONS, file), "utf8")),
);

let metafile: Metafile;
beforeAll(async () => {
  // As cdk/runlogFunction.ts bundles them (ESM, node22, "module" before "main"), nothing written.
  ({ metafile } = await build({
    entryPoints: handlers.map((file) => join(FUNCTIONS, file)),
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    mainFields: ["module", "main"],
    outdir: join(ROOT, ".module-graph"),
    write: false,
    metafile: true,
    logLevel: "silent",
    alias: { "#agents": join(FUNCTIONS, "agents.ts") },
  }));
}, 60_000);

/** The npm packages `file` reaches by static imports alone: what its bundle evaluates when loaded. */
function packagesEvaluatedBy(file: string): string[] {
  const entry = `functions/${file}`;
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    const input = metafile.inputs[queue.pop()!];
    for (const { path, kind } of input?.imports ?? []) {
      if (kind !== "import-statement" || seen.has(path)) continue;
      seen.add(path);
      queue.push(path);
    }
  }
  const packages = new Set<string>();
  for (const path of seen) {
    const at = path.lastIndexOf("node_modules/");
    if (at < 0) continue;
    const [scope = "", name = ""] = path.slice(at + 13).split("/");
    packages.add(scope.startsWith("@") ? `${scope}/${name}` : scope);
  }
  return [...packages].sort();
}

describe("the module graph of each Lambda handler at import", () => {
  it("finds the handlers", () => {
    expect(handlers).toEqual(
      expect.arrayContaining(["callModel.ts", "finish.ts", "api.ts", "redriveDeadLetters.ts"]),
    );
  });

  it.each(handlers)(
    "%s evaluates no model SDK, MCP SDK, CDK, or client only another function uses",
    (file) => {
      const packages = packagesEvaluatedBy(file);
      expect(packages.filter((name) => NEVER_AT_IMPORT.includes(name))).toEqual([]);
      // What every invocation needs is there: the store's client, and zod to check the input.
      expect(packages).toEqual(expect.arrayContaining(["@aws-sdk/client-dynamodb", "zod"]));
      if (file !== "api.ts")
        expect(packages.filter((name) => name === "hono" || name.startsWith("@hono/"))).toEqual([]);
    },
  );

  it("still bundles what is loaded on first use, behind import()", () => {
    const dynamic = Object.values(metafile.inputs).flatMap((input) =>
      input.imports.filter((i) => i.kind === "dynamic-import").map((i) => i.path),
    );
    expect(dynamic.some((path) => path.includes("node_modules/@aws-sdk/client-lambda/"))).toBe(true);
    expect(dynamic.some((path) => path.endsWith("lib/adapters/openai/model.ts"))).toBe(true);
  });
});
