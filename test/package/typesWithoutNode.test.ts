import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = (await import(join(ROOT, "package.json"), { with: { type: "json" } })).default as {
  exports: Record<string, { types?: string } | string>;
};

/**
 * A user's project that does not install @types/node (a browser app using runlog/client, a
 * backend that has not added it yet) compiles against every entry point's types: none of them
 * names a Node global type (NodeJS.ProcessEnv, Buffer) a program would need @types/node for.
 */
describe("the published types, in a strict project without @types/node", () => {
  it("compile for every entry point, skipLibCheck off", () => {
    const entries = Object.entries(pkg.exports)
      .filter(([, target]) => typeof target !== "string" && target.types !== undefined)
      .map(([entry]) => entry.replace(/^\./, "runlog"))
      // runlog/cdk's types are aws-cdk-lib's, which need @types/node themselves.
      .filter((entry) => entry !== "runlog/cdk");
    expect(entries).toContain("runlog");
    const dir = mkdtempSync(join(tmpdir(), "types-without-node-"));
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT, join(dir, "node_modules", "runlog"), "dir");
    symlinkSync(join(ROOT, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
    const file = join(dir, "consumer.ts");
    writeFileSync(
      file,
      entries.map((entry, i) => `import * as e${i} from "${entry}";\nexport const v${i} = e${i};\n`).join(""),
    );
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      types: [],
      skipLibCheck: false,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
