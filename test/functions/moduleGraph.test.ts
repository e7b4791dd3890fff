/**
 * Issue 27's cold starts: a Lambda bundle reads, parses and evaluates at import its entry file and
 * every chunk that file imports statically; what a handler reaches only by `import()` is a chunk of
 * its own (cdk/lambdaBundle.ts splits the bundle), read on first use. So each handler's files read at
 * import hold only what every invocation of it needs: the model SDKs, the MCP SDK, the clients
 * only one function uses (the redrive's Lambda and SQS) and Step Functions' (which no model or tool
 * call needs) are in chunks read when first used. Checked on the files esbuild writes (its
 * metafile) with the construct's own options, not on the time it takes.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { bundleOptions } from "../../cdk/lambdaBundle.ts";
import { packagesOf } from "../support/loadedModules.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const FUNCTIONS = join(ROOT, "functions");

/** Packages no handler may read just by being imported. */
const NEVER_AT_IMPORT = [
  "openai",
  "@aws-sdk/client-bedrock-runtime",
  "@modelcontextprotocol/sdk",
  "@aws-sdk/client-lambda",
  "@aws-sdk/client-sqs",
  // Loaded by the first start, stop or describe of an execution: no model or tool call makes one.
  "@aws-sdk/client-sfn",
  // Only a deployment that names a model key secret reads one, at its cold start.
  "@aws-sdk/client-secrets-manager",
  "@aws-lambda-powertools/parameters",
  "ajv",
  "aws-cdk-lib",
  "constructs",
];

/** The handler modules: every file of functions/ that exports `handler`. */
const handlers = readdirSync(FUNCTIONS).filter(
  (file) =>
    file.endsWith(".ts") && /export const handler\b/.test(readFileSync(join(FUNCTIONS, file), "utf8")),
);

/** Each handler's bundle, as the construct makes it (nothing written). */
const metafiles = new Map<string, Metafile>();
beforeAll(async () => {
  await Promise.all(
    handlers.map(async (file) => {
      const { metafile } = await build({
        ...bundleOptions(join(FUNCTIONS, file), join(FUNCTIONS, "agents.ts"), ROOT),
        outdir: join(ROOT, ".module-graph", file),
        write: false,
        metafile: true,
        logLevel: "silent",
      });
      metafiles.set(file, metafile);
    }),
  );
}, 120_000);

/** The output files `file`'s bundle reads at import: its entry and the chunks it imports statically. */
function filesReadAtImport(metafile: Metafile): string[] {
  // The handler's own file (an `import()` target is an entry point too, in chunks/).
  const entry = Object.keys(metafile.outputs).find((out) => out.endsWith("/index.mjs"));
  if (!entry) throw new Error("no index.mjs in the bundle");
  const seen = new Set([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const { path, kind } of metafile.outputs[queue.pop()!]?.imports ?? []) {
      if (kind !== "import-statement" || seen.has(path) || !(path in metafile.outputs)) continue;
      seen.add(path);
      queue.push(path);
    }
  }
  return [...seen];
}

/** The npm packages whose code is in `outputs`. */
const packagesIn = (metafile: Metafile, outputs: string[]): string[] =>
  packagesOf(outputs.flatMap((out) => Object.keys(metafile.outputs[out]?.inputs ?? {})));

const packagesReadBy = (file: string): string[] => {
  const metafile = metafiles.get(file)!;
  return packagesIn(metafile, filesReadAtImport(metafile));
};

describe("the files each Lambda handler reads at import", () => {
  it("finds the handlers", () => {
    expect(handlers).toEqual(
      expect.arrayContaining(["callModel.ts", "finish.ts", "api.ts", "redriveDeadLetters.ts"]),
    );
  });

  it.each(handlers)("%s reads no model SDK, MCP SDK, CDK, or client only another function uses", (file) => {
    const packages = packagesReadBy(file);
    expect(packages.filter((name) => NEVER_AT_IMPORT.includes(name))).toEqual([]);
    // What every invocation needs is there: the store's client, and zod to check the input.
    expect(packages).toEqual(expect.arrayContaining(["@aws-sdk/client-dynamodb", "zod"]));
    if (file !== "api.ts")
      expect(packages.filter((name) => name === "hono" || name.startsWith("@hono/"))).toEqual([]);
  });

  // Node's ES module of node:http reads its getters, which load undici (cdk/lambdaBundle.ts).
  it.each(handlers)("%s imports node:http as Node's own module, never as an ES module", (file) => {
    const metafile = metafiles.get(file)!;
    const esm = Object.values(metafile.outputs).flatMap((output) =>
      output.imports.filter(
        (i) => i.external && /^(node:)?http$/.test(i.path) && i.kind === "import-statement",
      ),
    );
    expect(esm).toEqual([]);
    expect(Object.keys(metafile.inputs).some((input) => /cdk\/nodeHttp\.c[tj]s$/.test(input))).toBe(true);
  });

  it("still bundles what is read on first use, in chunks of their own", () => {
    const metafile = metafiles.get("callModel.ts")!;
    const atImport = new Set(filesReadAtImport(metafile));
    const later = Object.keys(metafile.outputs).filter((out) => out.endsWith(".mjs") && !atImport.has(out));
    const packages = packagesIn(metafile, later);
    expect(packages).toEqual(
      expect.arrayContaining(["openai", "@aws-sdk/client-bedrock-runtime", "@aws-sdk/client-sfn"]),
    );
  });
});
