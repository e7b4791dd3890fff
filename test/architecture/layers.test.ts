import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "../support/sourceFiles.ts";

/**
 * The layers of docs/design/architecture.md, as the folders show them: core <- ports <- {steps, agents, adapters}
 * <- runtime <- api <- {http, cli, functions, cdk}. Every import of lib/, functions/ and cdk/
 * (type imports, re-exports and dynamic `import()` too) must be one this file allows, and no
 * files may import each other in a circle.
 */

/**
 * THE MATRIX: each layer (a folder or a file) and what else it may import. A file belongs to the
 * longest key its path starts with; it may always import its own layer (see ADAPTER_PLUMBING for
 * adapters). A value names a layer, or a part of one (a folder) where only that part is allowed.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  /** Pure: event schemas, the reducer, the classifier, ids, errors, what a model is sent. */
  "lib/core": [],
  /** Interfaces: EventStore, Model, Tool, Orchestrator, Clock, Ids. */
  "lib/ports": ["lib/core"],
  /** The state machine (ASL) and its time budgets: one contract for cdk, the local runner, steps and adapters. */
  "lib/workflow": ["lib/core", "lib/ports"],
  /** Use cases: each sees core, ports and the workflow's contract, never an agent or an adapter. */
  "lib/steps": ["lib/core", "lib/ports", "lib/workflow"],
  "lib/agents": ["lib/core", "lib/ports"],
  /** Stores, models, the Step Functions client: never steps (ADAPTER_PLUMBING says which folders share). */
  "lib/adapters": ["lib/core", "lib/ports", "lib/workflow"],
  /** The composition roots: the only layer that puts adapters and steps together. */
  "lib/runtime": ["lib/core", "lib/ports", "lib/workflow", "lib/steps", "lib/agents", "lib/adapters"],
  /** The Runlog facade over the control operations, with deps from runtime: it sees no adapter. */
  "lib/api": ["lib/core", "lib/ports", "lib/steps", "lib/agents", "lib/runtime"],
  /** The Node version check every entry point imports first. */
  "lib/requireNode.ts": ["lib/core"],
  /** The package's entry point `runlog`: the public API. */
  "lib/index.ts": ["lib/requireNode.ts", "lib/core", "lib/ports", "lib/agents", "lib/api"],
  "lib/http": ["lib/requireNode.ts", "lib/core", "lib/ports", "lib/api"],
  /**
   * `runlog/client`: the HTTP API's client. Of api, ports and http it takes types only (the
   * request and answer shapes), which test/client/loading.test.ts holds it to: it loads core's errors.
   */
  "lib/client": ["lib/requireNode.ts", "lib/core", "lib/ports", "lib/api", "lib/http"],
  "lib/cli": ["lib/core", "lib/ports", "lib/agents", "lib/runtime", "lib/api", "lib/http", "lib/client"],
  /** `runlog/testing` also publishes the scripted model's script format. */
  "lib/testing": [
    "lib/requireNode.ts",
    "lib/core",
    "lib/ports",
    "lib/agents",
    "lib/adapters/scripted",
    "lib/runtime",
    "lib/api",
  ],
  /**
   * The Lambda handlers: each binds one task or control operation to its step, with the deps
   * runtime/aws builds; of the adapters only the AWS plumbing (the metric names they emit).
   */
  functions: [
    "lib/core",
    "lib/ports",
    "lib/workflow",
    "lib/steps",
    "lib/agents",
    "lib/adapters/aws",
    "lib/runtime",
    "lib/api",
    "lib/http",
  ],
  /**
   * The construct: the workflow's definition, the table layout and metric names the deployed
   * adapters use, and the functions' variable names from the one configuration schema (runtime).
   */
  cdk: ["lib/requireNode.ts", "lib/core", "lib/workflow", "lib/adapters", "lib/runtime"],
};

/**
 * Inside lib/adapters, a folder sees only itself and the shared plumbing: the files at the top
 * of lib/adapters and these folders (AWS client config, error translation and metrics; the
 * stored encoding). The plumbing sees only plumbing; choosing among adapters is runtime's.
 */
const ADAPTER_PLUMBING = ["lib/adapters/aws", "lib/adapters/encoding"];

/** Packages that reach AWS, a model provider or the cloud's tooling: only these layers import them. */
const SDKS = [
  "@aws-sdk",
  "@aws-lambda-powertools",
  "openai",
  "@modelcontextprotocol",
  "aws-cdk-lib",
  "constructs",
  "cdk-nag",
  "aws-local-stepfunctions",
  "dynalite",
];
/** lib/client: only the credential chain, loaded when a client signs (PACKAGES names the one package). */
const SDK_LAYERS = new Set(["lib/adapters", "lib/runtime", "lib/client", "functions", "cdk"]);

/** Which npm packages each layer may import (`node:` for Node's builtins); SDKs only where SDK_LAYERS says. */
const PACKAGES: Readonly<Record<string, readonly string[]>> = {
  "lib/core": ["zod"],
  "lib/ports": ["zod"],
  "lib/workflow": ["zod"],
  "lib/steps": ["zod"],
  /** The demo agent's tools write files. */
  "lib/agents": ["zod", "node:"],
  /**
   * `@modelcontextprotocol/sdk`: the MCP clients (lib/adapters/mcp), loaded by runtime on first use;
   * `@smithy/core/retry`: the AWS SDK's own retry predicates, which lib/adapters/aws/errors.ts classifies by;
   * `@smithy/core/config`: the SDK's own region chain, which lib/adapters/aws/region.ts runs with an empty AWS_REGION unset.
   */
  "lib/adapters": [
    "zod",
    "node:",
    "@aws-sdk",
    "openai",
    "@modelcontextprotocol",
    "@smithy/core/retry",
    "@smithy/core/config",
  ],
  "lib/runtime": ["zod", "node:", "@aws-sdk", "@aws-lambda-powertools", "openai"],
  "lib/api": ["zod", "node:"],
  "lib/requireNode.ts": [],
  "lib/index.ts": [],
  "lib/http": ["zod", "node:", "hono"],
  "lib/client": [
    "zod",
    "eventsource-parser",
    "@smithy/signature-v4",
    "@smithy/core/checksum",
    "@aws-sdk/credential-provider-node",
  ],
  "lib/cli": ["node:", "@hono/node-server"],
  "lib/testing": ["node:"],
  /** `#agents`: the agents module the bundle serves (package.json `imports`). */
  functions: ["zod", "node:", "@aws-sdk", "@aws-lambda-powertools", "openai", "#agents"],
  /** `esbuild`: the project's own (a peer dependency), bundling each function (cdk/lambdaBundle.ts). */
  cdk: ["node:", "aws-cdk-lib", "constructs", "cdk-nag", "esbuild"],
};

const TREES = ["lib", "functions", "cdk"];

/** Every module a source names: static imports and re-exports (type-only too), `import()` and `require`. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** The package.json `imports` (e.g. `#agents`) as the source tree resolves them. */
const PACKAGE_IMPORTS = Object.fromEntries(
  Object.entries(
    (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
        imports?: Record<string, { "runlog-source"?: string }>;
      }
    ).imports ?? {},
  ).flatMap(([name, target]) =>
    target["runlog-source"] ? [[name, normalize(target["runlog-source"])] as const] : [],
  ),
);

interface Import {
  /** As written. */
  spec: string;
  /** The file of this tree it names, if it names one. */
  file?: string;
}

function resolved(from: string, spec: string): Import {
  if (spec.startsWith(".")) return { spec, file: normalize(join(dirname(from), spec)) };
  const own = PACKAGE_IMPORTS[spec];
  return own === undefined ? { spec } : { spec, file: own };
}

/** The layer a path belongs to: the longest key of MAY_IMPORT it starts with. */
function layerOf(path: string): string | undefined {
  return Object.keys(MAY_IMPORT)
    .filter((key) => path === key || path.startsWith(`${key}/`))
    .sort((a, b) => b.length - a.length)[0];
}

const within = (path: string, part: string) => path === part || path.startsWith(`${part}/`);
/** `openai` of `openai/core/streaming`, `@aws-sdk` of `@aws-sdk/client-sfn` (a scope names its packages). */
const packageName = (spec: string) => spec.split("/")[0]!;
const packageMatches = (spec: string, allowed: string) =>
  allowed === "node:" ? spec.startsWith("node:") : packageName(spec) === allowed || spec === allowed;

/** The folder of lib/adapters a file is in, or "plumbing" for the shared ones and the top files. */
function adapterPart(path: string): string {
  const rest = path.slice("lib/adapters/".length);
  if (!rest.includes("/")) return "plumbing";
  const folder = `lib/adapters/${rest.split("/")[0]}`;
  return ADAPTER_PLUMBING.includes(folder) ? "plumbing" : folder;
}

/** Why an import breaks the rule, or undefined when the matrix allows it. */
function violation(file: string, target: Import): string | undefined {
  const layer = layerOf(file);
  if (layer === undefined) return `${file} belongs to no layer of MAY_IMPORT`;
  if (target.file === undefined) {
    const spec = target.spec;
    const allowed = PACKAGES[layer] ?? [];
    if (!allowed.some((name) => packageMatches(spec, name)))
      return `${file} imports ${spec}: ${layer} may import only the packages ${JSON.stringify(allowed)}`;
    if (SDKS.some((name) => packageMatches(spec, name)) && !SDK_LAYERS.has(layer))
      return `${file} imports ${spec}: only ${[...SDK_LAYERS].join(", ")} import SDKs`;
    return undefined;
  }
  const to = target.file;
  if (!TREES.some((tree) => within(to, tree)))
    return `${file} imports ${target.spec}, outside ${TREES.join(", ")}`;
  const toLayer = layerOf(to);
  if (toLayer === undefined) return `${file} imports ${target.spec}, which belongs to no layer`;
  if (toLayer === layer) {
    if (layer !== "lib/adapters") return undefined;
    const [mine, theirs] = [adapterPart(file), adapterPart(to)];
    if (theirs === "plumbing" || theirs === mine) return undefined;
    return `${file} imports ${target.spec}: a folder of lib/adapters sees only itself and the plumbing (${["lib/adapters/*.ts", ...ADAPTER_PLUMBING].join(", ")})`;
  }
  const allowed = MAY_IMPORT[layer]!;
  if (allowed.some((part) => within(to, part))) return undefined;
  return `${file} imports ${target.spec} (${toLayer}): ${layer} may import only ${JSON.stringify(allowed)}`;
}

/** The import circles of a graph: its strongly connected parts of more than one file, or a file importing itself. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== node);
    if (part.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(part.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

const FILES = TREES.flatMap((dir) => sourceFiles(dir));
const IMPORTS = new Map(
  FILES.map((file) => [
    file,
    importsOf(readFileSync(join(ROOT, file), "utf8")).map((spec) => resolved(file, spec)),
  ]),
);

describe("the layers of docs/design/architecture.md", () => {
  it("every import of lib/, functions/ and cdk/ is one the matrix allows", () => {
    const broken = [...IMPORTS].flatMap(([file, targets]) =>
      targets.flatMap((target) => violation(file, target) ?? []),
    );
    expect(broken).toEqual([]);
  });

  it("every file of this tree that an import names exists", () => {
    const known = new Set(FILES);
    const missing = [...IMPORTS].flatMap(([file, targets]) =>
      targets.flatMap((target) =>
        target.file !== undefined && !known.has(target.file) ? `${file} imports ${target.spec}` : [],
      ),
    );
    expect(missing).toEqual([]);
  });

  it("no files of lib/, functions/ and cdk/ import each other in a circle", () => {
    const graph = new Map(
      [...IMPORTS].map(([file, targets]) => [file, targets.flatMap((target) => target.file ?? [])]),
    );
    expect(circles(graph).map((circle) => circle.join(" <-> "))).toEqual([]);
  });

  describe("the check itself", () => {
    it("reads type imports, re-exports, dynamic imports and side-effect imports", () => {
      const text = [
        'import type { A } from "./a.ts";',
        'export { b } from "./b.ts";',
        'import "./c.ts";',
        'const d = await import("./d.ts");',
      ].join("\n");
      expect(importsOf(text)).toEqual(["./a.ts", "./b.ts", "./c.ts", "./d.ts"]);
    });

    it.each([
      ["lib/core/x.ts", "../steps/start.ts", "lib/steps"],
      ["lib/steps/x.ts", "../agents/registry.ts", "lib/agents"],
      ["lib/adapters/x/y.ts", "../../steps/deps.ts", "lib/steps"],
      ["lib/adapters/sqlite/y.ts", "../dynamodb/table.ts", "itself and the plumbing"],
      ["lib/adapters/aws/y.ts", "../sqlite/log.ts", "itself and the plumbing"],
      ["lib/http/x.ts", "../steps/start.ts", "lib/steps"],
      ["lib/cli/x.ts", "../adapters/store.ts", "lib/adapters"],
      ["lib/api/x.ts", "../adapters/ids.ts", "lib/adapters"],
      ["functions/x.ts", "../lib/adapters/dynamodb/table.ts", "lib/adapters"],
      ["lib/steps/x.ts", "node:fs", "packages"],
      ["lib/core/x.ts", "hono", "packages"],
      ["lib/http/x.ts", "openai", "packages"],
    ])("refuses %s importing %s", (file, spec, named) => {
      expect(violation(file, resolved(file, spec))).toContain(named);
    });

    it.each([
      ["lib/runtime/x.ts", "../adapters/sqlite/log.ts"],
      ["lib/adapters/sqlite/y.ts", "../encoding/eventBody.ts"],
      ["lib/adapters/dynamodb/y.ts", "../aws/errors.ts"],
      ["lib/adapters/dynamodb/y.ts", "../paging.ts"],
      ["functions/x.ts", "../lib/adapters/aws/metrics.ts"],
      ["functions/x.ts", "#agents"],
      ["lib/core/x.ts", "zod"],
    ])("lets %s import %s", (file, spec) => {
      expect(violation(file, resolved(file, spec))).toBeUndefined();
    });

    it("finds each circle once, with every file in it", () => {
      const graph = new Map([
        ["a", ["b"]],
        ["b", ["c"]],
        ["c", ["a", "d"]],
        ["d", []],
        ["e", ["e"]],
      ]);
      expect(circles(graph)).toEqual([["a", "b", "c"], ["e"]]);
    });
  });
});
