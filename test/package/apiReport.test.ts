import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apiReports, inOrder, REPORT_DIR } from "../support/apiReport.ts";

/**
 * The public API is what the built declaration files of the entry points say, and it changes only
 * on purpose: each entry point's API Extractor report is committed in etc/, so a change to the
 * API is a change to a file review sees (dist/ is built by the tests' global setup).
 */
describe("the public API report", () => {
  const reports = apiReports();

  it.each(reports.map((report) => [report.entry, report] as const))(
    "%s declares what etc/ records",
    (_entry, report) => {
      const committed = join(REPORT_DIR, report.file);
      const hint = `the public API of ${report.entry} changed: run \`npm run api:report\` and commit etc/${report.file}`;
      expect(existsSync(committed), hint).toBe(true);
      expect(report.text, hint).toBe(readFileSync(committed, "utf8"));
    },
  );
});

describe("a report's zod enums", () => {
  it("list their keys sorted, whatever order the compiler wrote them in, and nothing else moves", () => {
    const written = [
      "    reason: z_2.ZodEnum<{",
      '        model_failed: "model_failed";',
      '        budget_exhausted: "budget_exhausted";',
      '        "runlog.RunFailed": "runlog.RunFailed";',
      "    }>;",
      '    second: "first";',
      '    first: "second";',
    ].join("\n");
    expect(inOrder(written)).toBe(
      [
        "    reason: z_2.ZodEnum<{",
        '        "runlog.RunFailed": "runlog.RunFailed";',
        '        budget_exhausted: "budget_exhausted";',
        '        model_failed: "model_failed";',
        "    }>;",
        '    second: "first";',
        '    first: "second";',
      ].join("\n"),
    );
  });
});
