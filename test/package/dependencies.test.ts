import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string }>;
};

/** Every version of each package the lockfile installs, by name. */
function installed(): Map<string, Set<string>> {
  const versions = new Map<string, Set<string>>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    const at = path.lastIndexOf("node_modules/");
    if (at === -1 || entry.version === undefined) continue;
    const name = path.slice(at + "node_modules/".length);
    versions.set(name, (versions.get(name) ?? new Set()).add(entry.version));
  }
  return versions;
}

describe("runlog's dependencies, as a project that installs it gets them", () => {
  it("are caret ranges, so npm can share one copy with the project's own (the lockfile keeps the pins)", () => {
    const notCaret = Object.entries(pkg.dependencies).filter(([, range]) => !/^\^\d+\.\d+\.\d+$/.test(range));
    expect(notCaret).toEqual([]);
  });

  it("leave what the user's own code shares to the user: zod, aws-cdk-lib, constructs and esbuild are peers", () => {
    const shared = ["aws-cdk-lib", "constructs", "esbuild", "zod"];
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(shared);
    expect(Object.keys(pkg.dependencies).filter((name) => shared.includes(name))).toEqual([]);
  });

  it("hold each family (AWS SDK clients, Powertools) at one version, so their shared parts install once", () => {
    const versions = installed();
    for (const family of ["@aws-sdk/client-", "@aws-lambda-powertools/"]) {
      const members = Object.keys(pkg.dependencies).filter((name) => name.startsWith(family));
      expect([...new Set(members.map((name) => pkg.dependencies[name]))], family).toHaveLength(1);
      // The same range can still resolve apart (one client updated alone in the lockfile): check what installs.
      const resolved = new Set(members.flatMap((name) => [...(versions.get(name) ?? [])]));
      expect([...resolved], family).toHaveLength(1);
    }
    for (const shared of ["@smithy/core", "@aws-sdk/core", "@aws-lambda-powertools/commons"]) {
      expect([...(versions.get(shared) ?? [])], shared).toHaveLength(1);
    }
  });
});
