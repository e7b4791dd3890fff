import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadEsbuild } from "../../cdk/lambdaBundle.ts";
import { RunlogPropsError } from "../../cdk/propsError.ts";

const empty = mkdtempSync(join(tmpdir(), "runlog-no-esbuild-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe("the esbuild that bundles the functions", () => {
  it("is the project's own when it has one", () => {
    const root = join(import.meta.dirname, "..", "..");
    expect(typeof loadEsbuild(root, pathToFileURL(join(empty, "x.js")).href).buildSync).toBe("function");
  });

  it("missing, is an error naming the project and the command that installs it", () => {
    const missing = () => loadEsbuild(empty, pathToFileURL(join(empty, "x.js")).href);
    expect(missing).toThrow(RunlogPropsError);
    expect(missing).toThrow(`${empty}: runlog bundles its functions with esbuild, which is not installed`);
    expect(missing).toThrow("npm install --save-dev esbuild");
  });
});
