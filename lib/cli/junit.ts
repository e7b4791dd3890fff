import type { ReplayReport } from "../api/replay.ts";
import { describeDifference } from "../core/replayDiff.ts";

/** Outside XML's Char production: C0 controls but tab, newline and return; lone surrogates; U+FFFE/F. */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML cannot hold are what it finds.
  /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text as XML 1.0 takes it: the five markup characters escaped, characters XML cannot hold shown as \u{…}. */
export function xmlText(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;")
    .replaceAll(NOT_XML, (char) => `\\u{${char.charCodeAt(0).toString(16)}}`);
}

/** A replay report as a JUnit file: one test case per run, a failure for each changed run listing its differences. */
export function junitOf(report: ReplayReport): string {
  const cases = report.runs.map((run) => {
    const name = `<testcase classname="runlog.replay" name="${xmlText(run.runId)}">`;
    if (!run.changed) return `  ${name}</testcase>`;
    const lines = [
      ...(run.error === undefined ? [] : [`replay failed: ${run.error}`]),
      ...run.differences.map(describeDifference),
    ];
    const message = xmlText(`${run.replayRunId}: ${lines.join("; ")}`);
    const body = xmlText(lines.join("\n"));
    return `  ${name}\n    <failure message="${message}" type="changed">${body}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="runlog replay" tests="${report.runs.length}" failures="${report.changed}">`,
    ` <testsuite name="runlog replay" tests="${report.runs.length}" failures="${report.changed}">`,
    ...cases,
    " </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
