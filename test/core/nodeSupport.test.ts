import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REQUIRED_NODE, unsupportedNode } from "../../lib/core/nodeSupport.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

describe("unsupportedNode", () => {
  it.each([
    ["20.20.2", true],
    ["18.0.0", true],
    ["v20.20.2", true],
    ["22.12.9", true],
    ["22.13.0", false],
    ["22.13.1", false],
    ["22.23.3", false],
    ["24.0.0", false],
    ["not-a-version", true],
  ])("Node %s is refused: %s", (found, refused) => {
    const problem = unsupportedNode(found);
    if (!refused) return expect(problem).toBeUndefined();
    expect(problem).toBe(
      `runlog needs Node.js 22.13 or later, but this is Node.js ${found}: ` +
        "install Node.js 22 (https://nodejs.org/en/download, or `nvm install 22`) and run again.",
    );
    expect(problem).not.toContain("\n");
  });
});

describe("the Node runlog needs is named once", () => {
  it("package.json engines says the version the check enforces", () => {
    expect(pkg.engines.node).toBe(`>=${REQUIRED_NODE.replace(/\.0$/, "")}`);
  });

  it("the repository brings its own Node (a devDependency at Lambda's major), and .nvmrc names it", () => {
    const tested = pkg.devDependencies.node;
    expect(tested).toMatch(/^22\.\d+\.\d+$/);
    expect(unsupportedNode(tested!)).toBeUndefined();
    expect(readFileSync(join(ROOT, ".nvmrc"), "utf8").trim()).toBe(tested);
    // npm scripts (`npm test` among them) run on it: npm puts node_modules/.bin first on their PATH.
    if (process.env.npm_lifecycle_event) expect(process.versions.node).toBe(tested);
  });
});
