import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { classNames, renamedClasses } from "../../bin/bundleNames.ts";

/** The built package's entry (dist/ is built by the test run's globalSetup), as `import "runlog"` loads it. */
const BUILT = pathToFileURL(join(import.meta.dirname, "..", "..", "dist", "bundle", "index.js")).href;

/** Two modules that each declare `class Clash` (an error, as runlog's are) and `function helper`. */
const MODULES: Record<string, string> = {
  "a.ts":
    "export class Clash extends Error { constructor() { super('a'); this.name = new.target.name; } }\nexport function helper() { return 1; }\n",
  "b.ts":
    "export class Clash extends Error { constructor() { super('b'); this.name = new.target.name; } }\nexport function helper() { return 2; }\n",
  "entry.ts":
    "import { Clash as A, helper as h1 } from './a.ts';\nimport { Clash as B, helper as h2 } from './b.ts';\nexport const names = [new A().name, new B().name, h1.name, h2.name];\n",
};

/** `entry.ts` bundled as bin/build.ts bundles the package (no keepNames), in memory. */
async function bundleClash(): Promise<string> {
  const result = await build({
    stdin: { contents: MODULES["entry.ts"] ?? "", resolveDir: "/", sourcefile: "entry.ts", loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent",
    plugins: [
      {
        name: "in-memory",
        setup(bundler) {
          bundler.onResolve({ filter: /^\.\// }, (args) => ({
            path: args.path.slice(2),
            namespace: "memory",
          }));
          bundler.onLoad({ filter: /.*/, namespace: "memory" }, (args) => ({
            contents: MODULES[args.path] ?? "",
            loader: "ts",
          }));
        },
      },
    ],
  });
  return result.outputFiles[0]?.text ?? "";
}

describe("the bundles keep every class's name (bin/bundleNames.ts)", () => {
  it("reads the names classes are given in TypeScript and in esbuild's output", () => {
    const code =
      "export abstract class Base {}\nvar Clash2 = class extends Error {};\nconst x = class extends Base {};";
    expect([...classNames(code)].sort()).toEqual(["Base", "Clash2", "x"]);
  });

  it("finds the class esbuild renamed when two bundled modules declare one of the same name", async () => {
    const bundled = await bundleClash();
    // What the check is for: without keepNames the second error's name is no longer its class's.
    const run = await import(`data:text/javascript,${encodeURIComponent(bundled)}`);
    expect(run.names).toEqual(["Clash", "Clash2", "helper", "helper2"]);
    expect(renamedClasses([bundled], Object.values(MODULES))).toEqual(["Clash2"]);
  });

  it("finds none where every class has a name of its own", () => {
    const sources = ["export class Clash extends Error {}", "export class Other {}"];
    const bundled = "var Clash = class extends Error {};\nvar Other = class {};";
    expect(renamedClasses([bundled], sources)).toEqual([]);
  });

  it("gives runlog's built errors their class's name and code", async () => {
    const { ConflictError } = (await import(BUILT)) as typeof import("../../lib/index.ts");
    const error = new ConflictError("seq 3 of run r is taken");
    expect(error.name).toBe("ConflictError");
    expect(error.code).toBe("conflict");
  });
});
