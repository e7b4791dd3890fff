/**
 * The public API as review sees it: one API Extractor report (`etc/<entry>.api.md`) per entry
 * point of package.json's `exports`, made from the built declaration files in dist/. A change to
 * what `runlog`, `runlog/cdk`, `runlog/http` or `runlog/testing` exports shows as a change to a
 * committed file. `npm run api:report` builds and rewrites the reports; test/package/apiReport.test.ts
 * fails while they differ from what the build declares. tsc writes an inferred union's members in
 * the order it first met each, which depends on the order it checked the files: an incremental
 * build (the tests') after an edit to lib/core/budget.ts wrote the keys of a zod enum
 * (`FailureReasonSchema`'s) in another order than a clean one. So a report lists each zod enum's
 * keys sorted (inOrder), and the order the compiler happened to take is no change to the API.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  ExtractorMessageCategory,
} from "@microsoft/api-extractor";

const ROOT = join(import.meta.dirname, "..", "..");
/** Where the reports are committed: API Extractor's usual folder, outside the docs and the package. */
export const REPORT_DIR = join(ROOT, "etc");

export interface EntryReport {
  /** The entry point as users import it: `runlog`, `runlog/cdk` … */
  entry: string;
  /** The report's file name in REPORT_DIR. */
  file: string;
  /** The declaration file the report is made from. */
  types: string;
  text: string;
}

interface Manifest {
  name: string;
  exports: Record<string, string | { types?: string }>;
}

/** Every entry point with types, as package.json's `exports` names them. */
function entryPoints(): { entry: string; file: string; types: string }[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    if (typeof target === "string" || target.types === undefined) return [];
    const entry = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
    return [{ entry, file: `${entry.replace("/", "-")}.api.md`, types: join(ROOT, target.types) }];
  });
}

/** The compiler as the package is built; the reports read only dist/'s declarations and the peers'. */
const COMPILER_OPTIONS = {
  target: "ES2022",
  lib: ["ES2023"],
  module: "NodeNext",
  moduleResolution: "NodeNext",
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  types: ["node"],
};

function configFor(types: string, file: string, folder: string): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      // API Extractor writes CRLF unless told; the repository's files end lines in LF.
      newlineKind: "lf",
      mainEntryPointFilePath: types,
      compiler: { overrideTsconfig: { compilerOptions: COMPILER_OPTIONS } },
      apiReport: {
        enabled: true,
        reportFileName: file,
        reportFolder: folder,
        reportTempFolder: folder,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.None },
          // A type the API uses but the entry point does not export: a user cannot name it.
          // Written into the report, where review sees it.
          "ae-forgotten-export": { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(ROOT, "package.json"),
  });
}

/** A zod enum's key, as a declaration writes it: `model_failed: "model_failed";`. */
const ENUM_KEY = /^\s*("?)([^":\s]+)\1: "\2";$/;

/** The report with each run of zod enum keys sorted, so the compiler's order of a union is not read as a change. */
export function inOrder(report: string): string {
  const lines = report.split("\n");
  let start = 0;
  while (start < lines.length) {
    let end = start;
    while (end < lines.length && ENUM_KEY.test(lines[end]!)) end++;
    if (end - start > 1) lines.splice(start, end - start, ...lines.slice(start, end).sort());
    start = Math.max(end, start + 1);
  }
  return lines.join("\n");
}

/** Make every entry point's report from dist/ (built first: `npm run build`, or the tests' global setup). */
export function apiReports(): EntryReport[] {
  const entries = entryPoints();
  for (const { types } of entries) {
    if (!existsSync(types)) throw new Error(`${types} is missing: \`npm run build\` first`);
  }
  const folder = mkdtempSync(join(tmpdir(), "runlog-api-report-"));
  try {
    const configs = entries.map(({ types, file }) => configFor(types, file, folder));
    // One program for all entry points: they share most of their declarations.
    const compilerState = CompilerState.create(configs[0]!, {
      additionalEntryPoints: entries.map(({ types }) => types),
    });
    return entries.map((entry, index) => {
      const problems: string[] = [];
      const result = Extractor.invoke(configs[index]!, {
        localBuild: true,
        compilerState,
        messageCallback: (message: ExtractorMessage) => {
          if (
            message.logLevel === ExtractorLogLevel.Error ||
            message.category === ExtractorMessageCategory.Compiler
          ) {
            problems.push(message.formatMessageWithLocation(ROOT));
          }
          message.handled = true;
        },
      });
      if (!result.succeeded || problems.length > 0) {
        throw new Error(`API Extractor failed on ${entry.entry}:\n${problems.join("\n")}`);
      }
      return { ...entry, text: inOrder(readFileSync(join(folder, entry.file), "utf8")) };
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** `npm run api:report`: rewrite the committed reports from the build. */
if (import.meta.filename === process.argv[1]) {
  mkdirSync(REPORT_DIR, { recursive: true });
  for (const report of apiReports()) {
    writeFileSync(join(REPORT_DIR, report.file), report.text);
    process.stdout.write(`${report.entry}: etc/${report.file}\n`);
  }
}
