import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Stack } from "aws-cdk-lib";
import { afterAll, describe, expect, it } from "vitest";
import { RunlogPropsError } from "../../cdk/index.ts";
import { Runlog } from "../../cdk/runlog.ts";

const REPO = join(import.meta.dirname, "..", "..");
const FIXTURE = join(import.meta.dirname, "fixtures", "agents.ts");
const temp = mkdtempSync(join(tmpdir(), "runlog-agents-module-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** An agents module of this source, in a directory of its own. */
function module(name: string, source: string): string {
  const dir = join(temp, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name.endsWith(".cjs") ? "agents.cjs" : "agents.ts");
  writeFileSync(file, source);
  return file;
}

function refusal(agentsModule: string): unknown {
  const stack = new Stack(new App({ context: { "aws:cdk:bundling-stacks": [] } }), "Agents");
  try {
    new Runlog(stack, "Agents", { agentsModule, projectRoot: REPO });
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("an agents module without the named export `agents` is refused at synth", () => {
  it.each([
    ["no agents", "export const something = 1;\n", "exports only something"],
    ["a default export", "export default { agents: {} };\n", "exports only default"],
    ["nothing", "const agents = {};\n", "exports nothing"],
    ["a syntax error", "export const agents = ;\n", "does not build"],
  ])("%s", (name, source, problem) => {
    const file = module(name.replaceAll(" ", "-"), source);
    const error = refusal(file);
    expect(error).toBeInstanceOf(RunlogPropsError);
    expect(error).toMatchObject({ prop: "agentsModule" });
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain(problem);
  });

  it.each([
    ["a named export", "export const agents = {};\n"],
    ["a re-export from a project file", `export { agents } from ${JSON.stringify(FIXTURE)};\n`],
    ["a re-export of a whole package (cannot be read: let through)", 'export * from "zod";\n'],
    ["a CommonJS module (imported by name when bundled)", "exports.agents = {};\n"],
  ])("accepts %s", (name, source) => {
    const file = module(name.replaceAll(/\W+/g, "-") + (name.includes("CommonJS") ? ".cjs" : ""), source);
    expect(refusal(file)).toBeUndefined();
  });
});
