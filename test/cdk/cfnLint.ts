import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** cfn-lint over a whole template: minutes on a loaded machine, as bundling.test.ts allows. */
export const CFN_LINT_TIMEOUT = 240_000;

/**
 * cfn-lint's errors for templates written to a directory of their own (`dispose` removes it):
 * its exit status and output, with the file's path made relative so messages read the same.
 */
export function cfnLinter(): {
  lint(body: object): { status: number | null; output: string };
  dispose(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "runlog-cfn-lint-"));
  return {
    lint(body) {
      const file = join(dir, `template-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify(body));
      // Errors only: cfn-lint's warnings are advice (W), not faults of the template.
      const run = spawnSync("cfn-lint", ["--format", "parseable", "--ignore-checks", "W", "--", file], {
        encoding: "utf8",
      });
      if (run.error) throw new Error(`cfn-lint could not run: ${run.error.message}`);
      return {
        status: run.status,
        output: `${run.stdout}${run.stderr}`.replaceAll(file, relative(dir, file)),
      };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
